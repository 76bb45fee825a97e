import { useState } from 'preact/hooks';
import type { ActivityLogEntry } from '../../../src/client/index.js';
import { api } from '../api.js';
import { LogTable } from '../components/log-table.js';
import { Empty, ErrorNote, Loading, PageHeader, Pager, useAsync } from '../components/ui.js';

const TYPES = ['SMTP_RECEIVED', 'SPAM_CHECK', 'WEBHOOK', 'CHATAPP', 'CHATAPP_BOT', 'BULK_ACTION'] as const;
const STATUSES = ['SUCCESS', 'FAILED', 'PENDING'] as const;

export function LogsPage() {
  const [type, setType] = useState<(typeof TYPES)[number] | ''>('');
  const [status, setStatus] = useState<(typeof STATUSES)[number] | ''>('');
  const [page, setPage] = useState(1);
  const logs = useAsync(() => api.logs.list({ page, perPage: 50, ...(type ? { type } : {}), ...(status ? { status } : {}) }), [type, status, page]);

  return (
    <section>
      <PageHeader title="Activity log" />
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter the activity log">
        <label class="inline">
          <span>Type</span>
          <select
            value={type}
            onChange={(e) => {
              setType(e.currentTarget.value as typeof type);
              setPage(1);
            }}
          >
            <option value="">All</option>
            {TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <label class="inline">
          <span>Status</span>
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.currentTarget.value as typeof status);
              setPage(1);
            }}
          >
            <option value="">All</option>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
      </form>
      <ErrorNote error={logs.error} />
      {logs.loading && logs.data === undefined ? <Loading /> : null}
      {logs.data?.data.length === 0 ? <Empty>Nothing logged yet.</Empty> : null}
      {logs.data && logs.data.data.length > 0 ? <LogTable entries={logs.data.data as ActivityLogEntry[]} onResent={logs.reload} /> : null}
      <Pager page={page} hasNext={logs.data?.hasNextPage ?? false} onPage={setPage} />
    </section>
  );
}
