import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, saveBlob } from '../api.js';
import { ConfirmButton, CopyButton, Empty, ErrorNote, Link, Loading, PageHeader, StatusBadge, formatBytes, formatDate, useAction, useAsync } from '../components/ui.js';
import { prepareHtml } from '../email-html.js';
import { useRealtime } from '../realtime.js';
import { navigate } from '../router.js';

type Tab = 'html' | 'text' | 'headers' | 'raw';

export function EmailPage({ id }: { id: string }) {
  const email = useAsync(() => api.emails.get(id), [id]);
  const content = useAsync(() => api.emails.content(id), [id]);
  const logs = useAsync(() => api.logs.forEmail(id, { perPage: 100 }), [id]);
  const [tab, setTab] = useState<Tab | undefined>();
  const action = useAction();

  // Opening an email marks it read, as mail clients do.
  useEffect(() => {
    if (email.data && !email.data.read) void api.emails.markRead(id).then(({ read }) => email.setData((current) => current && { ...current, read }), () => undefined);
  }, [email.data?.id]);

  useRealtime((event) => {
    if (event.type === 'email.updated' && event.data.id === id && event.data.changes.read !== undefined) {
      const read = event.data.changes.read;
      email.setData((current) => current && { ...current, read });
    }
  });

  if (email.loading && email.data === undefined) return <Loading />;
  if (email.data === undefined) return <ErrorNote error={email.error} />;
  const message = email.data;
  const shown: Tab = tab ?? (content.data?.html ? 'html' : 'text');

  const toggleRead = () =>
    action.run(async () => {
      const { read } = message.read ? await api.emails.markUnread(id) : await api.emails.markRead(id);
      email.setData((current) => current && { ...current, read });
    });
  const remove = () =>
    action.run(async () => {
      await api.emails.delete(id);
      navigate('/emails');
    });

  return (
    <article class="email-view">
      <PageHeader title={message.subject || '(no subject)'}>
        <Link href="/emails" class="button secondary small">
          Back
        </Link>
        <button type="button" class="secondary small" onClick={toggleRead} disabled={action.busy}>
          Mark {message.read ? 'unread' : 'read'}
        </button>
        <button type="button" class="secondary small" onClick={() => action.run(async () => saveBlob((await api.emails.eml(id)) as Blob, `${id}.eml`))}>
          Download .eml
        </button>
        <ConfirmButton label="Delete" confirm="Delete this email for good?" onConfirm={remove} disabled={action.busy} />
      </PageHeader>
      <ErrorNote error={action.error} />
      <dl class="meta">
        <dt>From</dt>
        <dd>{message.from}</dd>
        <dt>To</dt>
        <dd>{message.to.join(', ')}</dd>
        {message.cc.length > 0 ? (
          <>
            <dt>Cc</dt>
            <dd>{message.cc.join(', ')}</dd>
          </>
        ) : null}
        <dt>Received</dt>
        <dd>
          {formatDate(message.createdAt)} · {formatBytes(message.size)} · {message.read ? 'read' : 'unread'}
        </dd>
        <dt>Authentication</dt>
        <dd class="auth-results">
          <span>
            SPF <StatusBadge value={message.spfResult} />
          </span>
          <span>
            DKIM <StatusBadge value={message.dkimResult} />
          </span>
          <span>
            DMARC <StatusBadge value={message.dmarcResult} />
          </span>
          <span class="muted">{message.authSummary}</span>
        </dd>
      </dl>
      {message.attachments.length > 0 ? (
        <section aria-label="Attachments" class="attachments">
          {message.attachments.map((attachment) => (
            <button
              type="button"
              class="secondary small"
              key={attachment.id}
              onClick={() => action.run(async () => saveBlob((await api.emails.attachment(id, attachment.id)) as Blob, attachment.filename))}
            >
              📎 {attachment.filename} ({formatBytes(attachment.size)})
            </button>
          ))}
        </section>
      ) : null}
      <div class="tabs" role="tablist" aria-label="Email body">
        {(['html', 'text', 'headers', 'raw'] as const).map((name) => (
          <button type="button" role="tab" key={name} aria-selected={shown === name} class={shown === name ? 'tab active' : 'tab'} onClick={() => setTab(name)}>
            {name === 'html' ? 'HTML' : name === 'raw' ? 'Raw' : name[0]?.toUpperCase() + name.slice(1)}
          </button>
        ))}
      </div>
      <div role="tabpanel" class="tab-panel">
        {content.data === undefined ? <ErrorNote error={content.error} /> : null}
        {content.loading ? <Loading /> : null}
        {content.data && shown === 'html' ? <HtmlBody html={content.data.html} /> : null}
        {content.data && shown === 'text' ? <pre class="text-body">{content.data.text ?? '(no text part)'}</pre> : null}
        {content.data && shown === 'headers' ? <Headers headers={content.data.headers} /> : null}
        {shown === 'raw' ? <RawSource id={id} /> : null}
      </div>
      <section class="timeline" aria-label="Activity">
        <h2>Activity</h2>
        <ErrorNote error={logs.error} />
        {logs.data?.data.length === 0 ? <p class="muted">No activity recorded.</p> : null}
        <ol>
          {(logs.data?.data ?? []).map((entry) => (
            <li key={entry.id}>
              <time dateTime={entry.createdAt}>{formatDate(entry.createdAt)}</time> <strong>{entry.type}</strong> <StatusBadge value={entry.status} /> {entry.message}
            </li>
          ))}
        </ol>
      </section>
    </article>
  );
}

function HtmlBody({ html }: { html: string | null }) {
  const [allowRemote, setAllowRemote] = useState(false);
  const prepared = useMemo(() => (html === null ? undefined : prepareHtml(html, allowRemote)), [html, allowRemote]);
  if (prepared === undefined) return <Empty>This email has no HTML part.</Empty>;
  return (
    <>
      {prepared.remoteImages > 0 && !allowRemote ? (
        <p class="notice">
          {prepared.remoteImages} remote image{prepared.remoteImages === 1 ? ' is' : 's are'} blocked to protect your privacy.{' '}
          <button type="button" class="secondary small" onClick={() => setAllowRemote(true)}>
            Load remote images
          </button>
        </p>
      ) : null}
      <iframe class="html-body" title="Email content" sandbox="" srcDoc={prepared.html} referrerpolicy="no-referrer" />
    </>
  );
}

function Headers({ headers }: { headers: Record<string, string> }) {
  return (
    <table class="table headers">
      <tbody>
        {Object.entries(headers).map(([name, value]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function RawSource({ id }: { id: string }) {
  const raw = useAsync(async () => ((await api.emails.eml(id)) as Blob).text(), [id]);
  if (raw.loading) return <Loading />;
  if (raw.data === undefined) return <ErrorNote error={raw.error} />;
  return (
    <>
      <CopyButton value={raw.data} label="Copy source" />
      <pre class="raw-body">{raw.data}</pre>
    </>
  );
}
