import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorNote, Field, Link, formValue, useAction, type FormEvent } from '../components/ui.js';
import { isSignupOpen, signIn, signUp } from '../session.js';

/** Sign in and sign up (email + password). A new account gets its first inbox at once, so mail can arrive right away. */
export function AuthPage({ mode }: { mode: 'signin' | 'signup' }) {
  const action = useAction();
  const [signupOpen, setSignupOpen] = useState(true);
  useEffect(() => {
    document.title = `${mode === 'signup' ? 'Create account' : 'Sign in'} · Mailroom`;
    isSignupOpen().then(setSignupOpen, () => undefined);
  }, [mode]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const email = formValue(event, 'email');
    const password = (event.currentTarget.elements.namedItem('password') as HTMLInputElement).value;
    void action.run(async () => {
      if (mode === 'signin') return signIn(email, password);
      await signUp(email, password, () => api.inboxes.create({ tags: ['first'] }));
    });
  };

  return (
    <main class="auth" id="main">
      <form class="card auth-card" onSubmit={submit} aria-labelledby="auth-title">
        <h1 id="auth-title">{mode === 'signup' ? 'Create your Mailroom account' : 'Sign in to Mailroom'}</h1>
        <Field label="Email">
          <input name="email" type="email" autoComplete="email" required maxLength={254} autoFocus />
        </Field>
        <Field label="Password" hint={mode === 'signup' ? 'At least 8 characters' : undefined}>
          <input name="password" type="password" autoComplete={mode === 'signup' ? 'new-password' : 'current-password'} required minLength={mode === 'signup' ? 8 : 1} maxLength={200} />
        </Field>
        <ErrorNote error={action.error} />
        <button type="submit" disabled={action.busy}>
          {action.busy ? 'Please wait…' : mode === 'signup' ? 'Create account' : 'Sign in'}
        </button>
        {mode === 'signin' ? (
          signupOpen ? (
            <p class="muted">
              New here? <Link href="/signup">Create an account</Link>
            </p>
          ) : (
            <p class="muted">Sign-up is closed on this server; ask an operator for an account.</p>
          )
        ) : (
          <p class="muted">
            Have an account? <Link href="/signin">Sign in</Link>
          </p>
        )}
      </form>
    </main>
  );
}
