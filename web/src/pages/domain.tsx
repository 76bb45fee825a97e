import { useState } from 'preact/hooks';
import type { DomainDetail } from '../../../src/client/index.js';
import { api } from '../api.js';
import { ConfirmButton, CopyButton, ErrorNote, Field, Loading, PageHeader, StatusBadge, formValue, formatDate, useAction, useAsync, type FormEvent, DataTable } from '../components/ui.js';
import { navigate } from '../router.js';

/** A custom domain: the DNS records to publish, verification with each record's result, DNS-provider setup. */
export function DomainPage({ id }: { id: string }) {
  const domain = useAsync(() => api.domains.get(id) as Promise<DomainDetail>, [id]);
  const action = useAction();
  const provider = useAction();
  const [providerResult, setProviderResult] = useState<string | undefined>();

  if (domain.data === undefined) return domain.loading ? <Loading /> : <ErrorNote error={domain.error} />;
  const current = domain.data;
  const change = (work: () => Promise<DomainDetail>) =>
    action.run(async () => {
      const next = await work();
      domain.setData(() => next);
    });
  // A failed verification (400) names each bad record; the reload shows every record's new status.
  const verify = () => action.run(() => api.domains.verify(current.domain, { code: current.verificationCode }).finally(() => domain.reload()));

  const setup = (event: FormEvent) => {
    event.preventDefault();
    const token = formValue(event, 'token');
    const zoneId = formValue(event, 'zoneId');
    void provider.run(async () => {
      const result = await api.domains.setupDnsProvider(current.domain, { dnsproviderApiToken: token, ...(zoneId ? { zoneId } : {}) });
      setProviderResult(`Zone ${result.zone.name}: ${result.changes.map((c) => `${c.type} ${c.action}`).join(', ')}`);
      domain.setData(() => result.domain);
    });
  };

  return (
    <section>
      <PageHeader title={current.unicodeDomain}>
        <StatusBadge value={current.verified ? 'verified' : 'pending'} />
        <button type="button" class="secondary small" disabled={action.busy} onClick={() => change(() => (current.enabled ? api.domains.disable(id) : api.domains.enable(id)))}>
          {current.enabled ? 'Disable' : 'Enable'}
        </button>
        <ConfirmButton
          label="Delete"
          confirm={`Delete ${current.domain}? Mail to it stops at once.`}
          onConfirm={() =>
            action.run(async () => {
              await api.domains.delete(id);
              navigate('/domains');
            })
          }
        />
      </PageHeader>
      <ErrorNote error={action.error} />
      <h2>DNS records</h2>
      <p class="muted">Publish these at your DNS provider, then verify. Last checked {formatDate(current.lastCheckedAt)}.</p>
      <DataTable columns={['Type', 'Name', 'Value', 'Status']}>
        {current.records.map((record) => (
          <tr key={`${record.type}-${record.name}`}>
            <td>{record.type}</td>
            <td>
              <code>{record.name}</code> <CopyButton value={record.name} />
            </td>
            <td>
              <code>
                {record.priority === undefined ? '' : `${record.priority} `}
                {record.value}
              </code>{' '}
              <CopyButton value={record.value} />
            </td>
            <td>
              <StatusBadge value={record.status} />
              {record.error ? <span class="error-text"> {record.error}</span> : null}
            </td>
          </tr>
        ))}
      </DataTable>
      <button type="button" disabled={action.busy} onClick={verify}>
        Verify now
      </button>
      <h2>Set up through your DNS provider</h2>
      <form class="card form-grid" onSubmit={setup} aria-label="DNS provider setup">
        <Field label="DNS provider API token" hint="Used once to create the records; not stored">
          <input name="token" type="password" required autoComplete="off" />
        </Field>
        <Field label="Zone id" hint="Optional; found from the domain otherwise">
          <input name="zoneId" />
        </Field>
        <div class="form-actions">
          <button type="submit" disabled={provider.busy}>
            Create records
          </button>
        </div>
        <ErrorNote error={provider.error} />
        {providerResult ? <p class="success">{providerResult}</p> : null}
      </form>
    </section>
  );
}
