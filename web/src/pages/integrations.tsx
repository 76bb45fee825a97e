import { useState } from 'preact/hooks';
import type { ChatappIntegration } from '../../../src/client/index.js';
import { api } from '../api.js';
import { ConfirmButton, Empty, ErrorNote, Field, Loading, PageHeader, StatusBadge, formValue, useAction, useAsync, type FormEvent } from '../components/ui.js';

/** Chat-app notifications: an incoming-webhook URL, or a bot token posting to a channel. */
export function IntegrationsPage() {
  const integrations = useAsync(() => api.integrations.list({ perPage: 100 }), []);
  const [kind, setKind] = useState<'webhook' | 'bot'>('webhook');
  const create = useAction();
  const action = useAction();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const form = event.currentTarget;
    const name = formValue(event, 'name');
    const body =
      kind === 'webhook'
        ? { kind, url: formValue(event, 'url') }
        : { kind, botToken: formValue(event, 'botToken'), channelId: formValue(event, 'channelId'), ...(formValue(event, 'guildId') ? { guildId: formValue(event, 'guildId') } : {}) };
    void create.run(async () => {
      await api.integrations.create({ ...body, ...(name ? { name } : {}) });
      form.reset();
      integrations.reload();
    });
  };

  const toggle = (integration: ChatappIntegration) =>
    action.run(async () => {
      await api.integrations.update(integration.id, { active: !integration.active });
      integrations.reload();
    });

  return (
    <section>
      <PageHeader title="Integrations" />
      <p class="muted">Announce received emails in a chat app channel.</p>
      <form class="card form-grid" onSubmit={submit} aria-label="Add an integration">
        <Field label="Kind">
          <select name="kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as 'webhook' | 'bot')}>
            <option value="webhook">Incoming webhook URL</option>
            <option value="bot">Bot</option>
          </select>
        </Field>
        <Field label="Name">
          <input name="name" maxLength={100} />
        </Field>
        {kind === 'webhook' ? (
          <Field label="Webhook URL">
            <input name="url" type="url" required />
          </Field>
        ) : (
          <>
            <Field label="Bot token">
              <input name="botToken" type="password" required autoComplete="off" />
            </Field>
            <Field label="Channel id">
              <input name="channelId" required />
            </Field>
            <Field label="Server (guild) id">
              <input name="guildId" />
            </Field>
          </>
        )}
        <div class="form-actions">
          <button type="submit" disabled={create.busy}>
            Add integration
          </button>
        </div>
        <ErrorNote error={create.error} />
      </form>
      <ErrorNote error={integrations.error ?? action.error} />
      {integrations.loading && integrations.data === undefined ? <Loading /> : null}
      {integrations.data?.data.length === 0 ? <Empty>No integrations yet.</Empty> : null}
      <ul class="plain cards">
        {(integrations.data?.data ?? []).map((integration) => (
          <li class="card row" key={integration.id}>
            <strong>{integration.name || integration.kind}</strong>
            <span class="muted">{integration.kind === 'webhook' ? integration.url : `channel ${integration.channelId ?? ''}`}</span>
            <StatusBadge value={integration.active ? 'active' : 'inactive'} />
            <button type="button" class="secondary small" onClick={() => toggle(integration)} disabled={action.busy}>
              {integration.active ? 'Pause' : 'Resume'}
            </button>
            <ConfirmButton
              label="Delete"
              confirm="Delete this integration?"
              onConfirm={() =>
                action.run(async () => {
                  await api.integrations.delete(integration.id);
                  integrations.reload();
                })
              }
            />
          </li>
        ))}
      </ul>
    </section>
  );
}
