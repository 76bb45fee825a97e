import { useEffect, useState } from 'preact/hooks';
import { Layout } from './components/layout.js';
import { Loading } from './components/ui.js';
import { match, navigate, usePath } from './router.js';
import { currentUser, onSessionChange, refresh, type SessionUser } from './session.js';
import { AuthPage } from './pages/auth.js';
import { EmailsPage } from './pages/emails.js';
import { EmailPage } from './pages/email.js';
import { InboxesPage } from './pages/inboxes.js';
import { InboxPage } from './pages/inbox.js';
import { DomainsPage } from './pages/domains.js';
import { DomainPage } from './pages/domain.js';
import { WebhooksPage } from './pages/webhooks.js';
import { WebhookPage } from './pages/webhook.js';
import { IntegrationsPage } from './pages/integrations.js';
import { ApiKeysPage } from './pages/api-keys.js';
import { LogsPage } from './pages/logs.js';
import { UsagePage } from './pages/usage.js';
import { NotFoundPage } from './pages/not-found.js';
import { ForgotPasswordPage, ResetPasswordPage, VerifyEmailPage } from './pages/account-links.js';
import { AccountSettingsPage } from './pages/account-settings.js';
import { ConnectPage } from './pages/connect.js';
import { EnvironmentsPage } from './pages/settings-environments.js';
import { StoragePage } from './pages/settings-storage.js';

function route(path: string, user: SessionUser) {
  if (match('/settings/account', path)) return <AccountSettingsPage user={user} />;
  let params: Record<string, string> | undefined;
  if ((params = match('/emails/:id', path))) return <EmailPage id={params.id as string} />;
  if ((params = match('/inboxes/:id', path))) return <InboxPage id={params.id as string} />;
  if ((params = match('/domains/:id', path))) return <DomainPage id={params.id as string} />;
  if ((params = match('/webhooks/:id', path))) return <WebhookPage id={params.id as string} />;
  if (match('/inboxes', path)) return <InboxesPage />;
  if (match('/domains', path)) return <DomainsPage />;
  if (match('/webhooks', path)) return <WebhooksPage />;
  if (match('/integrations', path)) return <IntegrationsPage />;
  if (match('/api-keys', path)) return <ApiKeysPage />;
  if (match('/logs', path)) return <LogsPage />;
  if (match('/usage', path)) return <UsagePage />;
  if (match('/connect', path)) return <ConnectPage />;
  if (match('/settings/environments', path)) return <EnvironmentsPage />;
  if (match('/settings/storage', path)) return <StoragePage />;
  if (match('/emails', path) || path === '/') return <EmailsPage />;
  return <NotFoundPage path={path} />;
}

const PUBLIC_PATHS = ['/signin', '/signup'];
/** Pages of emailed links and password recovery: shown signed in or not (a link opened in a signed-in browser still works). */
const LINK_PAGES: Record<string, () => preact.JSX.Element> = {
  '/verify-email': () => <VerifyEmailPage />,
  '/forgot-password': () => <ForgotPasswordPage />,
  '/reset-password': () => <ResetPasswordPage />,
};

export function App() {
  const path = usePath();
  const [user, setUser] = useState(currentUser());
  const [checked, setChecked] = useState(false);

  useEffect(() => onSessionChange(() => setUser(currentUser())), []);
  useEffect(() => {
    void refresh().finally(() => setChecked(true));
  }, []);
  useEffect(() => {
    if (!checked) return;
    if (path in LINK_PAGES) return;
    if (user === null && !PUBLIC_PATHS.includes(path)) navigate('/signin', true);
    if (user !== null && (PUBLIC_PATHS.includes(path) || path === '/')) navigate('/emails', true);
  }, [checked, user, path]);

  const linkPage = LINK_PAGES[path];
  if (linkPage !== undefined) return linkPage();
  if (!checked) return <main class="center"><Loading /></main>;
  if (user === null) return <AuthPage mode={path === '/signup' ? 'signup' : 'signin'} />;
  return <Layout path={path} user={user}>{route(path, user)}</Layout>;
}
