import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorNote, Field, Link, formValue, useAction, type FormEvent } from '../components/ui.js';
import { authConfig, signIn, signUp } from '../session.js';

type AuthConfig = Awaited<ReturnType<typeof authConfig>>;

/** What the server allows, for the auth pages' links; open sign-up without mail until it answers. */
export function useAuthConfig(): AuthConfig {
  const [config, setConfig] = useState<AuthConfig>({ signup: 'open', emailVerification: false, passwordReset: false });
  useEffect(() => {
    authConfig().then(setConfig, () => undefined);
  }, []);
  return config;
}

/** The card every signed-out page uses. */
export function AuthCard({ title, children, onSubmit }: { title: string; children: preact.ComponentChildren; onSubmit?: (event: FormEvent) => void }) {
  return (
    <main class="auth" id="main">
      <form class="card auth-card" onSubmit={onSubmit ?? ((event) => event.preventDefault())} aria-labelledby="auth-title">
        <h1 id="auth-title">{title}</h1>
        {children}
      </form>
    </main>
  );
}

/** "Check your email": the same words whether or not the address has an account (the server tells no more). */
export function CheckEmail({ email, what }: { email: string; what: string }) {
  return (
    <AuthCard title="Check your email">
      <p role="status">
        If <strong>{email}</strong> can be used, a mail to it has a link {what}. It can take a minute to arrive; look in the spam folder too.
      </p>
      <p class="muted">
        <Link href="/signin">Back to sign in</Link>
      </p>
    </AuthCard>
  );
}

/** Sign in and sign up (email + password). A new account gets its first inbox at once, so mail can arrive right away. */
export function AuthPage({ mode }: { mode: 'signin' | 'signup' }) {
  const action = useAction();
  const config = useAuthConfig();
  const [sentTo, setSentTo] = useState<string | undefined>();
  useEffect(() => {
    document.title = `${mode === 'signup' ? 'Create account' : 'Sign in'} · Mailroom`;
    setSentTo(undefined);
  }, [mode]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const email = formValue(event, 'email');
    const password = (event.currentTarget.elements.namedItem('password') as HTMLInputElement).value;
    void action.run(async () => {
      if (mode === 'signin') return signIn(email, password);
      if ((await signUp(email, password, () => api.inboxes.create({ tags: ['first'] }))) === 'check-email') setSentTo(email);
    });
  };

  if (mode === 'signup' && sentTo !== undefined) return <CheckEmail email={sentTo} what="to finish creating your account (it works for 24 hours)" />;
  return (
    <AuthCard title={mode === 'signup' ? 'Create your Mailroom account' : 'Sign in to Mailroom'} onSubmit={submit}>
      <Field label="Email">
        <input name="email" type="email" autoComplete="email" required maxLength={254} autoFocus />
      </Field>
      <Field label="Password" hint={mode === 'signup' ? 'At least 8 characters, not a common password' : undefined}>
        <input name="password" type="password" autoComplete={mode === 'signup' ? 'new-password' : 'current-password'} required minLength={mode === 'signup' ? 8 : 1} maxLength={200} />
      </Field>
      <ErrorNote error={action.error} />
      <button type="submit" disabled={action.busy}>
        {action.busy ? 'Please wait…' : mode === 'signup' ? 'Create account' : 'Sign in'}
      </button>
      {mode === 'signin' && config.passwordReset ? (
        <p class="muted">
          <Link href="/forgot-password">Forgot your password?</Link>
        </p>
      ) : null}
      {mode === 'signin' ? (
        config.signup === 'open' ? (
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
    </AuthCard>
  );
}
