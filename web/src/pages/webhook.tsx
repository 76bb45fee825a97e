import { useState } from 'preact/hooks';
import type { ActivityLogEntry, Inbox, Webhook } from '../../../src/client/index.js';
import { api } from '../api.js';
import { LogTable } from '../components/log-table.js';
import { ConfirmButton, Empty, ErrorNote, Field, Loading, PageHeader, Pager, SecretOnce, StatusBadge, formValue, useAction, useAsync, type FormEvent } from '../components/ui.js';
import { navigate } from '../router.js';

/** A webhook: state, secret rotation, and its delivery log (status, response code, resend). */
export function WebhookPage({ id }: { id: string }) {
  const webhook = useAsync(() => api.webhooks.get(id) as Promise<Webhook>, [id]);
  const [page, setPage] = useState(1);
  const logs = useAsync(() => api.webhooks.logs(id, { page, perPage: 50 }), [id, page]);
  const action = useAction();
  const [secret, setSecret] = useState<string | undefined>();

  if (webhook.data === undefined) return webhook.loading ? <Loading /> : <ErrorNote error={webhook.error} />;
  const current = webhook.data;

  return (
    <section>
      <PageHeader title="Webhook">
        <StatusBadge value={current.active ? 'active' : 'inactive'} />
        <button
          type="button"
          class="secondary small"
          disabled={action.busy}
          onClick={() =>
            action.run(async () => {
              const updated = await api.webhooks.update(id, { active: !current.active });
              webhook.setData(() => updated);
            })
          }
        >
          {current.active ? 'Deactivate' : 'Activate'}
        </button>
        <button
          type="button"
          class="secondary small"
          disabled={action.busy}
          onClick={() =>
            action.run(async () => {
              const rotated = await api.webhooks.rotateSecret(id);
              setSecret(rotated.secret);
              webhook.setData(() => rotated);
            })
          }
        >
          Rotate secret
        </button>
        <ConfirmButton
          label="Delete"
          confirm="Delete this webhook?"
          onConfirm={() =>
            action.run(async () => {
              await api.webhooks.delete(id);
              navigate('/webhooks');
            })
          }
        />
      </PageHeader>
      <ErrorNote error={action.error} />
      {secret ? <SecretOnce title="New signing secret" value={secret} onDone={() => setSecret(undefined)} /> : null}
      <dl class="meta">
        <dt>URL</dt>
        <dd>
          <code>{current.url}</code>
        </dd>
        <dt>Secret</dt>
        <dd>
          <code>{current.secret}</code>
        </dd>
      </dl>
      <LinkedInboxes webhook={current} onChange={webhook.reload} />
      <h2>Deliveries</h2>
      <ErrorNote error={logs.error} />
      {logs.loading && logs.data === undefined ? <Loading /> : null}
      {logs.data?.data.length === 0 ? <Empty>No deliveries yet.</Empty> : null}
      {logs.data && logs.data.data.length > 0 ? <LogTable entries={logs.data.data as ActivityLogEntry[]} onResent={logs.reload} /> : null}
      <Pager page={page} hasNext={logs.data?.hasNextPage ?? false} onPage={setPage} />
    </section>
  );
}

/** The inboxes whose mail fires this webhook (none: every email of the account); link and unlink. */
function LinkedInboxes({ webhook, onChange }: { webhook: Webhook; onChange: () => void }) {
  const inboxes = useAsync(() => api.inboxes.list({ perPage: 100 }).then((r) => r.data as Inbox[]), []);
  const action = useAction();
  const addressOf = (id: string) => inboxes.data?.find((inbox) => inbox.id === id)?.address ?? id;
  const unlinked = (inboxes.data ?? []).filter((inbox) => !webhook.inboxIds.includes(inbox.id));

  const link = (event: FormEvent) => {
    event.preventDefault();
    const inboxId = formValue(event, 'inboxId');
    if (inboxId) void action.run(() => api.inboxes.hooks.add(inboxId, { webhookId: webhook.id }).then(onChange));
  };

  return (
    <section aria-label="Linked inboxes">
      <h2>Inboxes</h2>
      <p class="muted">{webhook.inboxIds.length === 0 ? 'Not linked to any inbox: it fires for every email of the account.' : 'It fires only for mail to these inboxes.'}</p>
      <ul class="plain">
        {webhook.inboxIds.map((id) => (
          <li key={id}>
            <code>{addressOf(id)}</code>{' '}
            <button type="button" class="secondary small" disabled={action.busy} onClick={() => action.run(() => api.inboxes.hooks.remove(id, webhook.id).then(onChange))}>
              Unlink
            </button>
          </li>
        ))}
      </ul>
      {unlinked.length > 0 ? (
        <form class="inline-form" onSubmit={link}>
          <Field label="Link an inbox">
            <select name="inboxId">
              {unlinked.map((inbox) => (
                <option key={inbox.id} value={inbox.id}>
                  {inbox.address}
                </option>
              ))}
            </select>
          </Field>
          <button type="submit" class="secondary" disabled={action.busy}>
            Link
          </button>
        </form>
      ) : null}
      <ErrorNote error={action.error} />
    </section>
  );
}

