import type { Environment } from '../../../src/client/index.js';
import { api } from '../api.js';
import { ConfirmButton, DataTable, Empty, ErrorNote, Field, Loading, PageHeader, formValue, formatDate, useAction, useAsync, type FormEvent } from '../components/ui.js';

/** The account's environments (GET/POST/DELETE /environments); `production` always exists. */
export function EnvironmentsPage() {
  const environments = useAsync(() => api.environments.list().then((r) => r.data as Environment[]), []);
  const create = useAction();
  const remove = useAction();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const form = event.currentTarget;
    const name = formValue(event, 'name');
    const slug = formValue(event, 'slug');
    void create.run(async () => {
      await api.environments.create({ name, ...(slug ? { slug } : {}) });
      form.reset();
      environments.reload();
    });
  };
  const deleteEnvironment = (id: string) =>
    remove.run(async () => {
      await api.environments.delete(id);
      environments.reload();
    });

  return (
    <section>
      <PageHeader title="Environments" />
      <p class="muted">
        Environments keep mail, inboxes and keys apart (staging, CI, production). A key scoped to one environment sees only its data. An environment can be deleted once
        nothing belongs to it.
      </p>
      <form class="card form-grid" onSubmit={submit} aria-label="Create an environment">
        <Field label="Name">
          <input name="name" required maxLength={100} placeholder="Staging" />
        </Field>
        <Field label="Slug" hint="Optional: lower-case letters, digits and hyphens; made from the name when empty">
          <input name="slug" maxLength={64} pattern="[a-z0-9]+(-[a-z0-9]+)*" placeholder="staging" />
        </Field>
        <div class="form-actions">
          <button type="submit" disabled={create.busy}>
            Create environment
          </button>
        </div>
        <ErrorNote error={create.error} />
      </form>
      <ErrorNote error={environments.error ?? remove.error} />
      {environments.loading && environments.data === undefined ? <Loading /> : null}
      {environments.data?.length === 0 ? <Empty>No environments.</Empty> : null}
      {environments.data && environments.data.length > 0 ? (
        <DataTable columns={['Name', 'Slug', 'Created']} actions>
          {environments.data.map((env) => (
            <tr key={env.id}>
              <td>{env.name}</td>
              <td>
                <code>{env.slug}</code>
              </td>
              <td>{formatDate(env.createdAt)}</td>
              <td class="row-actions">
                {env.slug === 'production' ? (
                  <span class="muted">Always kept</span>
                ) : (
                  <ConfirmButton label="Delete" confirm={`Delete the environment “${env.name}”?`} disabled={remove.busy} onConfirm={() => void deleteEnvironment(env.id)} />
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </section>
  );
}
