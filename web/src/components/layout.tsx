import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { OfflineBanner } from '../connectivity.js';
import { onConnectionChange, useRealtime } from '../realtime.js';
import { navigate } from '../router.js';
import { signOut, type SessionUser } from '../session.js';
import { Link } from './ui.js';

const NAV = [
  ['/emails', 'Emails'],
  ['/inboxes', 'Inboxes'],
  ['/domains', 'Domains'],
  ['/webhooks', 'Webhooks'],
  ['/integrations', 'Integrations'],
  ['/api-keys', 'API keys'],
  ['/logs', 'Activity log'],
  ['/usage', 'Usage & plan'],
  ['/connect', 'Connect'],
  ['/settings/environments', 'Environments'],
  ['/settings/storage', 'Storage'],
] as const;

/** The signed-in shell: navigation, the live-stream indicator, and the account menu. */
export function Layout({ path, user, children }: { path: string; user: SessionUser; children: ComponentChildren }) {
  const [live, setLive] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  // Keeps the one realtime stream open for as long as the user is signed in.
  useRealtime(() => undefined);
  useEffect(() => onConnectionChange(setLive), []);
  // A new page moves focus to its content, as a page load would (screen readers announce it).
  useEffect(() => document.getElementById('main')?.focus({ preventScroll: true }), [path]);

  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <button type="button" class="menu-toggle secondary small" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <span class="brand">Mailroom</span>
        <span class={`live ${live ? 'on' : ''}`} role="status" title={live ? 'Live updates connected' : 'Live updates reconnecting'}>
          {live ? 'Live' : 'Offline'}
        </span>
        <Link href="/settings/account" class="user" aria-current={path === '/settings/account' ? 'page' : undefined}>
          <span class="user-email" title={user.email}>{user.email}</span>
          <span class="user-short">Account</span>
        </Link>
        <button
          type="button"
          class="secondary small"
          onClick={async () => {
            await signOut();
            navigate('/signin');
          }}
        >
          Sign out
        </button>
      </header>
      <nav id="nav" class={`sidebar ${menuOpen ? 'open' : ''}`} aria-label="Main" onClick={() => setMenuOpen(false)}>
        <ul>
          {NAV.map(([href, label]) => (
            <li key={href}>
              <Link href={href} aria-current={path === href || path.startsWith(`${href}/`) ? 'page' : undefined}>
                {label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" class="content" tabIndex={-1}>
        <OfflineBanner />
        {children}
      </main>
    </div>
  );
}
