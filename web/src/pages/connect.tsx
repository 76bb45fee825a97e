import { useState } from 'preact/hooks';
import type { ResponseOf } from '../../../src/client/index.js';
import { api } from '../api.js';
import { connectSnippets, type SnippetTarget } from '../connect-snippets.js';
import { CopyButton, ErrorNote, Link, Loading, PageHeader, formatBytes, useAsync } from '../components/ui.js';

type Connection = ResponseOf<'GET /api/v1/connection'>;

/** Shown in the snippets until the account has an inbox. */
const PLACEHOLDER_INBOX = { id: '<inbox id>', address: 'someone@example.com' };

const SMTP_SECURITY = { none: 'None: plain SMTP (no SSL/TLS, no STARTTLS)', 'starttls-optional': 'STARTTLS offered, not required (no implicit TLS)' } as const;
const SMTP_AUTH = { 'not-offered': 'None: do not log in (AUTH is not offered)', 'any-credentials': 'Optional: any user name and password are accepted' } as const;

function Setting({ name, value, copy }: { name: string; value: string; copy?: boolean }) {
  return (
    <>
      <dt>{name}</dt>
      <dd>
        <code>{value}</code> {copy ? <CopyButton value={value} label="Copy" /> : null}
      </dd>
    </>
  );
}

function ServerSettings({ connection, origin }: { connection: Connection; origin: string }) {
  const { smtp, imap } = connection;
  const certificate = (selfSigned: boolean) => (selfSigned ? ' (self-signed certificate)' : '');
  return (
    <div class="connect-grid">
      <section class="card" aria-labelledby="smtp-heading">
        <h2 id="smtp-heading">SMTP: send mail in</h2>
        <dl class="meta">
          <Setting name="Host" value={smtp.host} copy />
          <Setting name="Port" value={String(smtp.port)} copy />
          <dt>Security</dt>
          <dd>{SMTP_SECURITY[smtp.security] + certificate(smtp.selfSignedCertificate)}</dd>
          <dt>Login</dt>
          <dd>{SMTP_AUTH[smtp.auth]}</dd>
          <dt>Recipients</dt>
          <dd>{smtp.acceptsAnyRecipient ? 'Any address: every message is kept' : `Your inboxes' addresses (@${connection.mailDomain}) and verified domains`}</dd>
          <dt>Largest message</dt>
          <dd>{formatBytes(smtp.maxMessageBytes)}</dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="imap-heading">
        <h2 id="imap-heading">IMAP: read with a mail client</h2>
        <dl class="meta">
          <Setting name="Host" value={imap.host} copy />
          <Setting name="Port" value={String(imap.port)} copy />
          <dt>Security</dt>
          <dd>{`SSL/TLS from the start (not STARTTLS)${certificate(imap.selfSignedCertificate)}`}</dd>
          <dt>User name</dt>
          <dd>An inbox address</dd>
          <dt>Password</dt>
          <dd>
            An inbox-scoped key with the <code>imap</code> scope (an inbox's page, “API keys”)
          </dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="api-heading">
        <h2 id="api-heading">REST API</h2>
        <dl class="meta">
          <Setting name="Base URL" value={`${origin}/api/v1`} copy />
          <dt>Key header</dt>
          <dd>
            <code>{connection.api.keyHeader}</code>: a key from <Link href="/api-keys">API keys</Link>
          </dd>
          <dt>Reference</dt>
          <dd>
            <a href="/api/v1/docs" target="_blank" rel="noopener">
              /api/v1/docs
            </a>
          </dd>
        </dl>
      </section>
    </div>
  );
}

function Snippets({ target }: { target: SnippetTarget }) {
  return (
    <>
      {connectSnippets(target).map((snippet) => (
        <section class="card snippet" key={snippet.id} data-snippet={snippet.id} aria-labelledby={`snippet-${snippet.id}`}>
          <header class="snippet-header">
            <h2 id={`snippet-${snippet.id}`}>{snippet.title}</h2>
            <span class="muted">{snippet.language}</span>
            <CopyButton value={snippet.code} label="Copy" />
          </header>
          <pre class="snippet-code">
            <code>{snippet.code}</code>
          </pre>
        </section>
      ))}
    </>
  );
}

/** docs/dashboard.md "Connect": this server's real SMTP, IMAP and API settings, and snippets that work as pasted. */
export function ConnectPage() {
  const connection = useAsync(() => api.connection(), []);
  const inboxes = useAsync(() => api.inboxes.list({ perPage: 100 }), []);
  const [chosen, setChosen] = useState<string | undefined>(undefined);
  if (connection.data === undefined) return connection.loading ? <Loading /> : <ErrorNote error={connection.error} />;
  const list = inboxes.data?.data ?? [];
  const inbox = list.find((i) => i.id === chosen) ?? list[0] ?? PLACEHOLDER_INBOX;
  const origin = location.origin;
  return (
    <section>
      <PageHeader title="Connect" />
      <p class="muted">How your app, your tests and your mail client reach this server, from its running settings.</p>
      <ServerSettings connection={connection.data} origin={origin} />
      <section class="card" aria-labelledby="inboxes-heading">
        <h2 id="inboxes-heading">Your inbox addresses</h2>
        {inboxes.loading ? <Loading /> : null}
        <ErrorNote error={inboxes.error} />
        {list.length === 0 && !inboxes.loading ? (
          <p class="muted">
            No inboxes yet: <Link href="/inboxes">create one</Link>
            {connection.data.smtp.acceptsAnyRecipient ? ', or send to any address: this server keeps them all.' : '.'}
          </p>
        ) : (
          <ul class="address-list">
            {list.map((i) => (
              <li key={i.id}>
                <label>
                  <input type="radio" name="snippet-inbox" checked={i.id === inbox.id} onChange={() => setChosen(i.id)} /> <code>{i.address}</code>
                </label>
                <CopyButton value={i.address} label="Copy" />
              </li>
            ))}
          </ul>
        )}
        {list.length > 1 ? <p class="muted">The snippets below use the chosen inbox.</p> : null}
      </section>
      <Snippets target={{ connection: connection.data, origin, inbox }} />
    </section>
  );
}
