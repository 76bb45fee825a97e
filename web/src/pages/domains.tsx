import type { Domain } from '../../../src/client/index.js';
import { api } from '../api.js';
import { Empty, ErrorNote, Field, Link, Loading, PageHeader, StatusBadge, formValue, formatDate, useAction, useAsync, type FormEvent, DataTable } from '../components/ui.js';
import { navigate } from '../router.js';

export function DomainsPage() {
  const domains = useAsync(() => api.domains.list() as Promise<Domain[]>, []);
  const add = useAction();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const domain = formValue(event, 'domain');
    void add.run(async () => {
      const created = await api.domains.create({ domain });
      navigate(`/domains/${created.id}`);
    });
  };

  return (
    <section>
      <PageHeader title="Domains" />
      <form class="card inline-form" onSubmit={submit} aria-label="Add a domain">
        <Field label="Domain" hint="Receive mail for any address at your own domain">
          <input name="domain" required maxLength={253} placeholder="mail.example.com" />
        </Field>
        <button type="submit" disabled={add.busy}>
          Add domain
        </button>
      </form>
      <ErrorNote error={add.error ?? domains.error} />
      {domains.loading && domains.data === undefined ? <Loading /> : null}
      {domains.data?.length === 0 ? <Empty>No custom domains. Inboxes use the shared domain until you add one.</Empty> : null}
      {domains.data && domains.data.length > 0 ? (
        <DataTable columns={['Domain', 'Verified', 'Receiving', 'Added']}>
          {domains.data.map((domain) => (
            <tr key={domain.id}>
              <td>
                <Link href={`/domains/${domain.id}`}>{domain.unicodeDomain}</Link>
              </td>
              <td>
                <StatusBadge value={domain.verified ? 'verified' : 'pending'} />
              </td>
              <td>{domain.enabled ? 'Enabled' : 'Disabled'}</td>
              <td>{formatDate(domain.createdAt)}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </section>
  );
}
