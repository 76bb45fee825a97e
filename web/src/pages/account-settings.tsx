import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorNote, Field, PageHeader, useAction, type FormEvent } from '../components/ui.js';
import type { SessionUser } from '../session.js';
import { passwordsOf } from './account-links.js';

/** /settings/account: who is signed in, and the password change (other sessions are signed out). */
export function AccountSettingsPage({ user }: { user: SessionUser }) {
  const action = useAction();
  const [changed, setChanged] = useState(false);
  useEffect(() => {
    document.title = 'Account · Mailroom';
  }, []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setChanged(false);
    const form = event.currentTarget;
    const currentPassword = (form.elements.namedItem('currentPassword') as HTMLInputElement).value;
    void action.run(async () => {
      await api.account.changePassword({ currentPassword, newPassword: passwordsOf(event, 'newPassword', 'confirm') });
      form.reset();
      setChanged(true);
    });
  };

  return (
    <section>
      <PageHeader title="Account" />
      <div class="card">
        <dl class="meta">
          <dt>Email</dt>
          <dd>{user.email}</dd>
          <dt>Member since</dt>
          <dd>{new Date(user.createdAt).toLocaleDateString()}</dd>
        </dl>
      </div>
      <form class="card stack-form" onSubmit={submit} aria-labelledby="password-title">
        <h2 id="password-title">Change password</h2>
        <Field label="Current password">
          <input name="currentPassword" type="password" autoComplete="current-password" required maxLength={200} />
        </Field>
        <Field label="New password" hint="At least 8 characters, not a common password">
          <input name="newPassword" type="password" autoComplete="new-password" required minLength={8} maxLength={200} />
        </Field>
        <Field label="Repeat the new password">
          <input name="confirm" type="password" autoComplete="new-password" required minLength={8} maxLength={200} />
        </Field>
        <ErrorNote error={action.error} />
        {changed ? (
          <p class="success" role="status">
            Password changed. Your other sessions are signed out.
          </p>
        ) : null}
        <div>
          <button type="submit" disabled={action.busy}>
            {action.busy ? 'Please wait…' : 'Change password'}
          </button>
        </div>
      </form>
    </section>
  );
}
