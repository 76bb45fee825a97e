import { useState } from 'preact/hooks';
import type { Inbox, Webhook } from '../../../src/client/index.js';
import { api } from '../api.js';
import { Empty, ErrorNote, Field, Link, Loading, PageHeader, Pager, SecretOnce, StatusBadge, formValue, useAction, useAsync, type FormEvent, DataTable } from '../components/ui.js';

export function WebhooksPage() {
  const [page, setPage] = useState(1);
  const webhooks = useAsync(() => api.webhooks.list({ page, perPage: 50 }), [page]);
  const inboxes = useAsync(() => api.inboxes.list({ perPage: 100 }).then((r) => r.data as Inbox[]), []);
  const create = useAction();
  const [secret, setSecret] = useState<string | undefined>();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const form = event.currentTarget;
    const url = formValue(event, 'url');
    const description = formValue(event, 'description');
    const linked = [...(form.elements.namedItem('inboxIds') as HTMLSelectElement).selectedOptions].map((o) => o.value);
    void create.run(async () => {
      const webhook = await api.webhooks.create({ url, ...(description ? { description } : {}) });
      for (const inboxId of linked) await api.inboxes.hooks.add(inboxId, { webhookId: webhook.id });
      setSecret(webhook.secret);
      form.reset();
      webhooks.reload();
    });
  };

  return (
    <section>
      <PageHeader title="Webhooks" />
      <p class="muted">Mailroom POSTs every received email to these URLs, signed with HMAC-SHA256 (X-Webhook-Signature), and retries failures.</p>
      {secret ? <SecretOnce title="Signing secret of the new webhook" value={secret} onDone={() => setSecret(undefined)} /> : null}
      <form class="card form-grid" onSubmit={submit} aria-label="Create a webhook">
        <Field label="URL">
          <input name="url" type="url" required maxLength={2048} placeholder="https://example.com/hooks/mail" />
        </Field>
        <Field label="Description">
          <input name="description" maxLength={500} />
        </Field>
        <Field label="Only for these inboxes" hint="None selected: every email of the account">
          <select name="inboxIds" multiple size={3}>
            {(inboxes.data ?? []).map((inbox) => (
              <option key={inbox.id} value={inbox.id}>
                {inbox.address}
              </option>
            ))}
          </select>
        </Field>
        <div class="form-actions">
          <button type="submit" disabled={create.busy}>
            Create webhook
          </button>
        </div>
        <ErrorNote error={create.error} />
      </form>
      <ErrorNote error={webhooks.error} />
      {webhooks.loading && webhooks.data === undefined ? <Loading /> : null}
      {webhooks.data?.data.length === 0 ? <Empty>No webhooks yet.</Empty> : null}
      {webhooks.data && webhooks.data.data.length > 0 ? <WebhookTable webhooks={webhooks.data.data} /> : null}
      <Pager page={page} hasNext={webhooks.data?.hasNextPage ?? false} onPage={setPage} />
    </section>
  );
}

function WebhookTable({ webhooks }: { webhooks: Webhook[] }) {
  return (
    <DataTable columns={['URL', 'Inboxes', 'State']}>
      {webhooks.map((webhook) => (
        <tr key={webhook.id}>
          <td>
            <Link href={`/webhooks/${webhook.id}`}>{webhook.url}</Link>
            {webhook.description ? <div class="muted">{webhook.description}</div> : null}
          </td>
          <td>{webhook.inboxIds.length === 0 ? 'All' : webhook.inboxIds.length}</td>
          <td>
            <StatusBadge value={webhook.active ? 'active' : 'inactive'} />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
