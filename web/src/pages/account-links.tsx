import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorNote, Field, Link, Loading, formValue, useAction, type FormEvent } from '../components/ui.js';
import { navigate } from '../router.js';
import { requestPasswordReset, resetPassword, verifyEmail } from '../session.js';
import { AuthCard, CheckEmail } from './auth.js';

/**
 * The token of an emailed link (`#token=…`: a fragment never reaches a server or a Referer), read once
 * and then removed from the address bar and history.
 */
function useLinkToken(): string {
  const [token] = useState(() => new URLSearchParams(location.hash.slice(1)).get('token') ?? '');
  useEffect(() => {
    if (location.hash !== '') history.replaceState(null, '', location.pathname);
  }, []);
  return token;
}

const NEW_LINK_HINT = 'Links work once and expire; a newer mail replaces older links.';

/** /verify-email#token=…: the sign-up link; creates the account and signs in. */
export function VerifyEmailPage() {
  const token = useLinkToken();
  const action = useAction();
  useEffect(() => {
    document.title = 'Confirm email · Mailroom';
    void action.run(async () => {
      await verifyEmail(token, () => api.inboxes.create({ tags: ['first'] }));
      navigate('/emails', true);
    });
  }, [token]);

  return (
    <AuthCard title="Confirming your email">
      {action.error === undefined ? (
        <Loading label="Creating your account…" />
      ) : (
        <>
          <ErrorNote error={action.error} />
          <p class="muted">{NEW_LINK_HINT}</p>
          <p class="muted">
            <Link href="/signup">Sign up again</Link> · <Link href="/signin">Sign in</Link>
          </p>
        </>
      )}
    </AuthCard>
  );
}

/** /forgot-password: asks for a reset link; the answer never says whether the address has an account. */
export function ForgotPasswordPage() {
  const action = useAction();
  const [sentTo, setSentTo] = useState<string | undefined>();
  useEffect(() => {
    document.title = 'Forgot password · Mailroom';
  }, []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const email = formValue(event, 'email');
    void action.run(async () => {
      await requestPasswordReset(email);
      setSentTo(email);
    });
  };
  if (sentTo !== undefined) return <CheckEmail email={sentTo} what="to choose a new password (it works for one hour)" />;
  return (
    <AuthCard title="Reset your password" onSubmit={submit}>
      <p class="muted">Enter the email address of your account; we will mail you a link to choose a new password.</p>
      <Field label="Email">
        <input name="email" type="email" autoComplete="email" required maxLength={254} autoFocus />
      </Field>
      <ErrorNote error={action.error} />
      <button type="submit" disabled={action.busy}>
        {action.busy ? 'Please wait…' : 'Send reset link'}
      </button>
      <p class="muted">
        <Link href="/signin">Back to sign in</Link>
      </p>
    </AuthCard>
  );
}

/** Two password fields that must match (checked here; the server checks the rules). */
export function passwordsOf(event: FormEvent, first: string, second: string): string {
  const value = (name: string) => (event.currentTarget.elements.namedItem(name) as HTMLInputElement).value;
  if (value(first) !== value(second)) throw new Error('The two new passwords differ');
  return value(first);
}

/** /reset-password#token=…: sets the new password, signs out every other session, and signs in. */
export function ResetPasswordPage() {
  const token = useLinkToken();
  const action = useAction();
  useEffect(() => {
    document.title = 'New password · Mailroom';
  }, []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      await resetPassword(token, passwordsOf(event, 'password', 'confirm'));
      navigate('/emails', true);
    });
  };
  return (
    <AuthCard title="Choose a new password" onSubmit={submit}>
      <Field label="New password" hint="At least 8 characters, not a common password">
        <input name="password" type="password" autoComplete="new-password" required minLength={8} maxLength={200} autoFocus />
      </Field>
      <Field label="Repeat the new password">
        <input name="confirm" type="password" autoComplete="new-password" required minLength={8} maxLength={200} />
      </Field>
      <ErrorNote error={action.error} />
      <button type="submit" disabled={action.busy}>
        {action.busy ? 'Please wait…' : 'Set password and sign in'}
      </button>
      <p class="muted">
        {NEW_LINK_HINT} <Link href="/forgot-password">Get a new link</Link>
      </p>
    </AuthCard>
  );
}
