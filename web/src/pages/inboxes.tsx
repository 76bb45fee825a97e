import { useState } from 'preact/hooks';
import type { Domain, Environment, Inbox } from '../../../src/client/index.js';
import { api } from '../api.js';
import { ConfirmButton, CopyButton, Empty, ErrorNote, Field, Link, Loading, PageHeader, Pager, formValue, formatDate, useAction, useAsync, type FormEvent, DataTable } from '../components/ui.js';
import { useRealtime } from '../realtime.js';

const TTL_CHOICES = [
  ['', 'Never expires'],
  ['600', '10 minutes'],
  ['3600', '1 hour'],
  ['86400', '24 hours'],
] as const;

export function InboxesPage() {
  const [page, setPage] = useState(1);
  const inboxes = useAsync(() => api.inboxes.list({ page, perPage: 50 }), [page]);
  const environments = useAsync(() => api.environments.list().then((r) => r.data as Environment[]), []);
  const domains = useAsync(() => api.domains.list().then((list) => (list as Domain[]).filter((d) => d.verified && d.enabled)), []);
  const create = useAction();
  const remove = useAction();

  useRealtime((event) => {
    if (event.type === 'inbox.message') inboxes.setData((r) => r && { ...r, data: r.data.map((i) => (i.id === event.data.inboxId ? { ...i, messageCount: i.messageCount + 1 } : i)) });
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const form = event.currentTarget;
    const prefix = formValue(event, 'prefix');
    const ttl = formValue(event, 'ttl');
    const tags = formValue(event, 'tags').split(',').map((t) => t.trim()).filter(Boolean);
    const environmentId = formValue(event, 'environmentId');
    const domainId = formValue(event, 'domainId');
    void create.run(async () => {
      const inbox = await api.inboxes.create({
        ...(prefix ? { prefix } : {}),
        ...(ttl ? { ttlSeconds: Number(ttl) } : {}),
        ...(tags.length ? { tags } : {}),
        ...(environmentId ? { environmentId } : {}),
        ...(domainId ? { domainId } : {}),
      });
      form.reset();
      inboxes.setData((r) => r && { ...r, data: [inbox as Inbox, ...r.data], totalItems: r.totalItems + 1 });
    });
  };

  return (
    <section>
      <PageHeader title="Inboxes" />
      <form class="card form-grid" onSubmit={submit} aria-label="Create an inbox">
        <Field label="Prefix" hint="Optional; a random one otherwise">
          <input name="prefix" maxLength={64} placeholder="signup-test" />
        </Field>
        <Field label="Expires">
          <select name="ttl">
            {TTL_CHOICES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Tags" hint="Comma-separated">
          <input name="tags" placeholder="ci, staging" />
        </Field>
        <Field label="Environment">
          <select name="environmentId">
            {(environments.data ?? []).map((env) => (
              <option key={env.id} value={env.id}>
                {env.name}
              </option>
            ))}
          </select>
        </Field>
        {(domains.data ?? []).length > 0 ? (
          <Field label="Domain">
            <select name="domainId">
              <option value="">Shared domain</option>
              {(domains.data ?? []).map((d) => (
                <option key={d.id} value={d.id}>
                  {d.unicodeDomain}
                </option>
              ))}
            </select>
          </Field>
        ) : null}
        <div class="form-actions">
          <button type="submit" disabled={create.busy}>
            Create inbox
          </button>
        </div>
        <ErrorNote error={create.error} />
      </form>
      <ErrorNote error={inboxes.error ?? remove.error} />
      {inboxes.loading && inboxes.data === undefined ? <Loading /> : null}
      {inboxes.data?.data.length === 0 ? <Empty>No inboxes yet. Create one above to get an address that receives mail.</Empty> : null}
      {inboxes.data && inboxes.data.data.length > 0 ? (
        <DataTable columns={['Address', 'Messages', 'Tags', 'Expires']} actions>
          {inboxes.data.data.map((inbox) => (
            <tr key={inbox.id}>
              <td>
                <Link href={`/inboxes/${inbox.id}`} class="address">
                  {inbox.address}
                </Link>{' '}
                <CopyButton value={inbox.address} />
              </td>
              <td>{inbox.messageCount}</td>
              <td>{inbox.tags.map((t) => <span class="tag" key={t}>{t}</span>)}</td>
              <td>{inbox.expiresAt ? formatDate(inbox.expiresAt) : 'Never'}</td>
              <td>
                <ConfirmButton
                  label="Delete"
                  confirm={`Delete ${inbox.address} and its messages?`}
                  onConfirm={() =>
                    remove.run(async () => {
                      await api.inboxes.delete(inbox.id);
                      inboxes.setData((r) => r && { ...r, data: r.data.filter((i) => i.id !== inbox.id) });
                    })
                  }
                />
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager page={page} hasNext={inboxes.data?.hasNextPage ?? false} onPage={setPage} />
    </section>
  );
}
