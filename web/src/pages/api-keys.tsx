import { useState } from 'preact/hooks';
import type { ApiKey, Environment } from '../../../src/client/index.js';
import { api } from '../api.js';
import { ConfirmButton, Empty, ErrorNote, Field, Loading, PageHeader, Pager, SecretOnce, StatusBadge, formValue, formatDate, useAction, useAsync, type FormEvent, DataTable } from '../components/ui.js';

/** Tenant-level keys; inbox-scoped keys live on each inbox's page. */
export function ApiKeysPage() {
  const [page, setPage] = useState(1);
  const keys = useAsync(() => api.apiKeys.list({ page, perPage: 50 }), [page]);
  const environments = useAsync(() => api.environments.list().then((r) => r.data as Environment[]), []);
  const create = useAction();
  const action = useAction();
  const [created, setCreated] = useState<string | undefined>();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const form = event.currentTarget;
    const name = formValue(event, 'name');
    const environmentId = formValue(event, 'environmentId');
    const expires = formValue(event, 'expiresAt');
    void create.run(async () => {
      const key = await api.apiKeys.create({ name, ...(environmentId ? { environmentId } : {}), ...(expires ? { expiresAt: new Date(expires).toISOString() } : {}) });
      setCreated(key.key);
      form.reset();
      keys.reload();
    });
  };

  const change = (work: () => Promise<unknown>) =>
    action.run(async () => {
      await work();
      keys.reload();
    });
  const environmentName = (id: string | null) => (id === null ? 'All environments' : (environments.data?.find((e) => e.id === id)?.name ?? id));

  return (
    <section>
      <PageHeader title="API keys" />
      {created ? <SecretOnce title="Your new API key" value={created} onDone={() => setCreated(undefined)} /> : null}
      <form class="card form-grid" onSubmit={submit} aria-label="Create an API key">
        <Field label="Name">
          <input name="name" required maxLength={100} placeholder="CI pipeline" />
        </Field>
        <Field label="Environment">
          <select name="environmentId">
            <option value="">All environments</option>
            {(environments.data ?? []).map((env) => (
              <option key={env.id} value={env.id}>
                {env.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Expires" hint="Optional">
          <input name="expiresAt" type="date" />
        </Field>
        <div class="form-actions">
          <button type="submit" disabled={create.busy}>
            Create key
          </button>
        </div>
        <ErrorNote error={create.error} />
      </form>
      <ErrorNote error={keys.error ?? action.error} />
      {keys.loading && keys.data === undefined ? <Loading /> : null}
      {keys.data?.data.length === 0 ? <Empty>No API keys.</Empty> : null}
      {keys.data && keys.data.data.length > 0 ? (
        <DataTable columns={['Name', 'Key', 'Environment', 'Last used', 'State']} actions>
          {(keys.data.data as ApiKey[]).map((key) => (
            <tr key={key.id}>
              <td>{key.name}</td>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td>{environmentName(key.environmentId)}</td>
              <td>{formatDate(key.lastUsedAt)}</td>
              <td>
                <StatusBadge value={key.active ? 'active' : 'inactive'} />
              </td>
              <td class="row-actions">
                <button type="button" class="secondary small" disabled={action.busy} onClick={() => change(() => (key.active ? api.apiKeys.deactivate(key.id) : api.apiKeys.activate(key.id)))}>
                  {key.active ? 'Deactivate' : 'Activate'}
                </button>
                <ConfirmButton label="Delete" confirm={`Delete key ${key.name}? Clients using it stop working at once.`} onConfirm={() => change(() => api.apiKeys.delete(key.id))} />
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager page={page} hasNext={keys.data?.hasNextPage ?? false} onPage={setPage} />
    </section>
  );
}
