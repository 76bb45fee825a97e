import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Email } from '../../../src/client/index.js';
import { api, saveBlob } from '../api.js';
import { EmailArtefacts } from '../components/email-artefacts.js';
import { SpamVerdict } from '../components/spam-verdict.js';
import { PaperclipIcon } from '../components/icons.js';
import { HtmlCheckPanel, LinkCheckPanel } from '../components/message-checks.js';
import { ConfirmButton, CopyButton, Empty, ErrorNote, Link, Loading, PageHeader, StatusBadge, formatBytes, formatDate, useAction, useAsync } from '../components/ui.js';
import { bareContentId, linkifyText, prepareHtml, referencedContentIds } from '../email-html.js';
import { useRealtime } from '../realtime.js';
import { navigate } from '../router.js';

type Tab = 'html' | 'text' | 'headers' | 'raw' | 'html-check' | 'links';

const TAB_LABELS: Record<Tab, string> = { html: 'HTML', text: 'Text', headers: 'Headers', raw: 'Raw', 'html-check': 'HTML check', links: 'Links' };

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
    // The recheck worker filled in the spam verdict the filter could not give before the 250.
    if (event.type === 'email.updated' && event.data.id === id && event.data.changes.spamCheck !== undefined) {
      const { read: _read, ...spam } = event.data.changes;
      email.setData((current) => current && { ...current, ...spam });
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
        <button type="button" class="secondary small" onClick={() => action.run(async () => saveBlob((await api.emails.eml(id)) as Blob, emlFilename(message.subject, id)))}>
          Download .eml
        </button>
        <ConfirmButton label="Delete" confirm="Delete this email for good?" onConfirm={remove} disabled={action.busy} />
      </PageHeader>
      <ErrorNote error={action.error} />
      <dl class="meta">
        <dt>From</dt>
        <dd>{asSent(content.data?.headers.from, [message.from])}</dd>
        <dt>To</dt>
        <dd>{asSent(content.data?.headers.to, message.to)}</dd>
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
        <dd>
          <AuthResults email={message} />
        </dd>
        <dt>Spam</dt>
        <dd>
          <SpamVerdict spam={message} />
        </dd>
        <dt>Envelope</dt>
        <dd data-testid="envelope">
          MAIL FROM <code>{message.envelope.mailFrom === null ? 'not recorded' : `<${message.envelope.mailFrom}>`}</code> · HELO{' '}
          <code>{message.envelope.helo ?? 'not recorded'}</code> · client IP <code>{message.envelope.clientIp ?? 'unknown'}</code>
        </dd>
      </dl>
      {content.data ? <EmailArtefacts text={content.data.text} html={content.data.html} /> : null}
      {message.attachments.length > 0 ? (
        <section aria-label="Attachments" class="attachments">
          {message.attachments.map((attachment) => (
            <button
              type="button"
              class="secondary small"
              key={attachment.id}
              onClick={() => action.run(async () => saveBlob((await api.emails.attachment(id, attachment.id)) as Blob, attachment.filename))}
            >
              <PaperclipIcon label="attachment" /> {attachment.filename} ({formatBytes(attachment.size)})
            </button>
          ))}
        </section>
      ) : null}
      <div class="tabs" role="tablist" aria-label="Email body">
        {(['html', 'text', 'headers', 'raw', 'html-check', 'links'] as const).map((name) => (
          <button type="button" role="tab" key={name} aria-selected={shown === name} class={shown === name ? 'tab active' : 'tab'} onClick={() => setTab(name)}>
            {TAB_LABELS[name]}
          </button>
        ))}
      </div>
      <div role="tabpanel" class="tab-panel">
        {content.data === undefined ? <ErrorNote error={content.error} /> : null}
        {content.loading ? <Loading /> : null}
        {content.data && shown === 'html' ? <HtmlBody email={message} html={content.data.html} /> : null}
        {content.data && shown === 'text' ? <TextBody text={content.data.text} /> : null}
        {content.data && shown === 'headers' ? <Headers headers={content.data.headers} /> : null}
        {shown === 'raw' ? <RawSource id={id} /> : null}
        {shown === 'html-check' ? <HtmlCheckPanel id={id} /> : null}
        {shown === 'links' ? <LinkCheckPanel id={id} /> : null}
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

/**
 * An address header as sent, so display names show ("Acme News <news@acme.example>"); the stored
 * addresses when the header is missing, still MIME-encoded, or names other addresses.
 */
function asSent(header: string | undefined, addresses: string[]): string {
  const plain = addresses.join(', ');
  if (header === undefined || header.includes('=?')) return plain;
  const lower = header.toLowerCase();
  return addresses.every((a) => lower.includes(a.toLowerCase())) ? header.replace(/\s+/g, ' ') : plain;
}

/** The .eml's file name: the subject, without characters file systems refuse, else the id. */
function emlFilename(subject: string, id: string): string {
  const printable = [...subject].map((c) => (c.charCodeAt(0) < 32 ? ' ' : c)).join('');
  const name = printable.replace(/[\\/:*?"<>|]+/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 120);
  return `${name || id}.eml`;
}

const AUTH_CHECKS = [
  ['SPF', 'spfResult'],
  ['DKIM', 'dkimResult'],
  ['DMARC', 'dmarcResult'],
] as const;

/** Why a check came out as it did, from authDiagnostics (shown beside every result but a pass). */
function authReason(email: Email, check: (typeof AUTH_CHECKS)[number][0]): string | null {
  const diagnostics = email.authDiagnostics;
  if (check === 'SPF') return diagnostics.spf.explanation;
  if (check === 'DMARC') return diagnostics.dmarc.explanation;
  return diagnostics.dkim.map((d) => d.explanation).filter((e): e is string => e !== null).join('; ') || null;
}

function AuthResults({ email }: { email: Email }) {
  return (
    <ul class="auth-results">
      {AUTH_CHECKS.map(([check, field]) => {
        const reason = authReason(email, check);
        return (
          <li key={check} title={reason ?? undefined}>
            {check} <StatusBadge value={email[field]} />
            {reason !== null && email[field] !== 'pass' ? <span class="muted auth-reason"> {reason}</span> : null}
          </li>
        );
      })}
    </ul>
  );
}

function TextBody({ text }: { text: string | null }) {
  if (text === null) return <pre class="text-body">(no text part)</pre>;
  return (
    <pre class="text-body">
      {linkifyText(text).map((part, i) =>
        part.url === undefined ? (
          part.text
        ) : (
          <a key={i} href={part.url} target="_blank" rel="noopener noreferrer">
            {part.text}
          </a>
        ),
      )}
    </pre>
  );
}

/** Most inline parts at once: a mail with 500 cid: images does not open 500 requests together. */
const INLINE_FETCHES = 6;

const asDataUrl = (blob: Blob) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });

/** data: URLs of the inline parts the HTML refers to by cid:, keyed by bare Content-ID. */
async function loadInlineImages(email: Email, html: string): Promise<Map<string, string>> {
  const wanted = referencedContentIds(html);
  const parts = email.attachments.filter((a) => a.contentId !== null && wanted.has(bareContentId(a.contentId)));
  const images = new Map<string, string>();
  for (let i = 0; i < parts.length; i += INLINE_FETCHES) {
    await Promise.all(
      parts.slice(i, i + INLINE_FETCHES).map(async (part) => {
        const blob = (await api.emails.attachment(email.id, part.id)) as Blob;
        images.set(bareContentId(part.contentId as string), await asDataUrl(new Blob([blob], { type: part.contentType })));
      }),
    );
  }
  return images;
}

const NO_IMAGES: ReadonlyMap<string, string> = new Map();

/**
 * The frame grows to its content: it is same-origin (scripts never run in it: no allow-scripts), so
 * the page reads the content's height on load and whenever it changes (images arriving).
 */
function useFitToContent() {
  const frame = useRef<HTMLIFrameElement>(null);
  const observer = useRef<ResizeObserver | undefined>(undefined);
  useEffect(() => () => observer.current?.disconnect(), []);
  const onLoad = () => {
    const doc = frame.current?.contentDocument;
    if (!doc || !frame.current) return;
    const fit = () => {
      if (frame.current) frame.current.style.height = `${Math.max(doc.documentElement.scrollHeight, 80)}px`;
    };
    fit();
    observer.current?.disconnect();
    observer.current = new ResizeObserver(fit);
    observer.current.observe(doc.documentElement);
  };
  return { frame, onLoad };
}

function HtmlBody({ email, html }: { email: Email; html: string | null }) {
  const [allowRemote, setAllowRemote] = useState(false);
  const inline = useAsync(() => (html === null ? Promise.resolve(NO_IMAGES) : loadInlineImages(email, html)), [email.id, html]);
  const inlineImages = inline.data ?? NO_IMAGES;
  const prepared = useMemo(() => (html === null ? undefined : prepareHtml(html, { allowRemote, inlineImages })), [html, allowRemote, inlineImages]);
  const { frame, onLoad } = useFitToContent();
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
      <iframe
        ref={frame}
        onLoad={onLoad}
        class="html-body"
        title="Email content"
        sandbox="allow-same-origin allow-popups allow-popups-to-escape-sandbox"
        srcDoc={prepared.html}
        referrerpolicy="no-referrer"
      />
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
