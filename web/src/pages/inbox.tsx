import { useState } from 'preact/hooks';
import type { ApiKey, InboxMessage } from '../../../src/client/index.js';
import { api } from '../api.js';
import { linkDetailsOf } from '../link-details.js';
import { ConfirmButton, CopyButton, Empty, ErrorNote, Field, Link, Loading, PageHeader, SecretOnce, formValue, formatDate, useAction, useAsync, type FormEvent } from '../components/ui.js';
import { useRealtime } from '../realtime.js';
import { navigate } from '../router.js';

const PER_PAGE = 50;

/** One inbox: its address, messages with the extracted OTP and links up front, and its inbox-scoped keys. */
export function InboxPage({ id }: { id: string }) {
  const inbox = useAsync(() => api.inboxes.get(id), [id]);
  const messages = useAsync(() => api.inboxes.messages.list(id, { perPage: PER_PAGE }), [id]);
  const action = useAction();
  /** The next page after the messages shown; messages that arrived live meanwhile are skipped by id. */
  const loadMore = async () => {
    const shown = messages.data?.data ?? [];
    const next = await api.inboxes.messages.list(id, { perPage: PER_PAGE, page: Math.floor(shown.length / PER_PAGE) + 1 });
    messages.setData((r) => r && { ...next, data: [...r.data, ...next.data.filter((m) => !r.data.some((x) => x.id === m.id))] });
  };

  useRealtime((event) => {
    if (event.type !== 'inbox.message' || event.data.inboxId !== id) return;
    void api.inboxes.messages.get(id, event.data.messageId).then((message) =>
      messages.setData((r) => r && (r.data.some((m) => m.id === message.id) ? r : { ...r, data: [message as InboxMessage, ...r.data] })),
    );
  });

  if (inbox.data === undefined) return inbox.loading ? <Loading /> : <ErrorNote error={inbox.error} />;
  const current = inbox.data;

  return (
    <section>
      <PageHeader title={current.address}>
        <CopyButton value={current.address} label="Copy address" />
        <ConfirmButton
          label="Delete inbox"
          confirm={`Delete ${current.address} and its messages?`}
          onConfirm={() =>
            action.run(async () => {
              await api.inboxes.delete(id);
              navigate('/inboxes');
            })
          }
        />
      </PageHeader>
      <ErrorNote error={action.error} />
      <p class="muted">
        {current.environment.name} · {current.tags.length ? `tags ${current.tags.join(', ')} · ` : ''}
        {current.expiresAt ? `expires ${formatDate(current.expiresAt)}` : 'never expires'}
      </p>
      <div class="section-head">
        <h2>Messages{messages.data ? ` (${messages.data.totalItems})` : ''}</h2>
        {messages.data && messages.data.totalItems > 0 ? (
          <ConfirmButton
            label="Empty inbox"
            confirm={`Delete all ${messages.data.totalItems} emails of ${current.address}?`}
            onConfirm={() =>
              action.run(async () => {
                await api.inboxes.messages.clear(id);
                messages.reload();
              })
            }
          />
        ) : null}
      </div>
      <ErrorNote error={messages.error} />
      {messages.loading && messages.data === undefined ? <Loading /> : null}
      {messages.data?.data.length === 0 ? (
        <Empty>
          <p class="waiting" role="status" data-testid="waiting">
            <span class="pulse" aria-hidden="true" /> Waiting for mail to <code>{current.address}</code>…
          </p>
          <p class="muted">Messages appear here the moment they arrive, with any one-time code and links pulled out.</p>
        </Empty>
      ) : null}
      <div class="messages">
        {(messages.data?.data ?? []).map((message) => (
          <MessageCard key={message.id} message={message} />
        ))}
      </div>
      {messages.data && messages.data.data.length < messages.data.totalItems ? (
        <p class="load-more">
          <span class="muted">
            Showing {messages.data.data.length} of {messages.data.totalItems}
          </span>{' '}
          <button type="button" class="secondary small" disabled={action.busy} onClick={() => action.run(loadMore)}>
            Load {PER_PAGE} more
          </button>
        </p>
      ) : null}
      <InboxKeys inboxId={id} />
    </section>
  );
}

/** What a message whose extraction was skipped (extractionSkipped) shows: its snippet. */
const NO_ARTEFACTS: NonNullable<InboxMessage['extracted']> = { otp: null, verificationCode: null, links: [], linkDetails: [], codes: [], magicLink: null };

function MessageCard({ message }: { message: InboxMessage }) {
  const extracted = message.extracted ?? NO_ARTEFACTS;
  const code = extracted.otp ?? extracted.verificationCode;
  const links = linkDetailsOf(extracted);
  return (
    <article class="card message" data-testid="inbox-message">
      <header>
        <Link href={`/emails/${message.emailId}`}>
          <strong>{message.subject || '(no subject)'}</strong>
        </Link>
        <span class="muted">
          from {message.from} · {formatDate(message.createdAt)}
        </span>
      </header>
      {code ? (
        <div class="otp">
          <span class="label">Code</span>
          <code class="otp-value" data-testid="otp">
            {code}
          </code>
          <CopyButton value={code} label="Copy code" />
        </div>
      ) : null}
      {links.length > 0 ? (
        <ul class="links">
          {links.slice(0, 5).map((link) => (
            <li key={link.url}>
              <span class="tag">{link.kind}</span>
              <a href={link.url} target="_blank" rel="noopener noreferrer" class="big-link">
                {link.text || link.url}
              </a>
              <CopyButton value={link.url} label="Copy link" />
            </li>
          ))}
        </ul>
      ) : null}
      {!code && links.length === 0 ? <p class="snippet">{message.textBody.slice(0, 300)}</p> : null}
    </article>
  );
}

function InboxKeys({ inboxId }: { inboxId: string }) {
  const keys = useAsync(() => api.inboxes.apiKeys.list(inboxId).then((r) => r.data as ApiKey[]), [inboxId]);
  const action = useAction();
  const [created, setCreated] = useState<string | undefined>();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const name = formValue(event, 'name');
    const imap = (event.currentTarget.elements.namedItem('imap') as HTMLInputElement).checked;
    void action.run(async () => {
      const key = await api.inboxes.apiKeys.create(inboxId, { ...(name ? { name } : {}), scopes: imap ? ['api', 'imap'] : ['api'] });
      setCreated(key.key);
      keys.reload();
    });
  };

  return (
    <section aria-label="Inbox-scoped API keys">
      <h2>Inbox-scoped keys</h2>
      <p class="muted">Keys that can only read this inbox (for a CI job or an IMAP client).</p>
      {created ? <SecretOnce title="New inbox key" value={created} onDone={() => setCreated(undefined)} /> : null}
      <form class="inline-form" onSubmit={submit}>
        <Field label="Key name">
          <input name="name" maxLength={100} placeholder="CI" />
        </Field>
        <label class="check">
          <input type="checkbox" name="imap" /> IMAP access
        </label>
        <button type="submit" disabled={action.busy}>
          Create key
        </button>
      </form>
      <ErrorNote error={action.error ?? keys.error} />
      <ul class="plain">
        {(keys.data ?? []).map((key) => (
          <li key={key.id}>
            <code>{key.prefix}…</code> {key.name} · {key.scopes.join(', ')}{' '}
            <ConfirmButton
              label="Delete"
              confirm={`Delete key ${key.name}?`}
              onConfirm={() =>
                action.run(async () => {
                  await api.inboxes.apiKeys.delete(inboxId, key.id);
                  keys.reload();
                })
              }
            />
          </li>
        ))}
      </ul>
    </section>
  );
}
