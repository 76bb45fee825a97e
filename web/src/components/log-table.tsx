import type { ActivityLogEntry } from '../../../src/client/index.js';
import { api } from '../api.js';
import { ErrorNote, Link, StatusBadge, formatDate, useAction, DataTable } from './ui.js';

const RESENDABLE = new Set(['WEBHOOK', 'CHATAPP', 'CHATAPP_BOT']);

/** Activity-log entries with their details and, for failed deliveries, a resend button. */
export function LogTable({ entries, onResent }: { entries: ActivityLogEntry[]; onResent: () => void }) {
  const action = useAction();
  return (
    <>
      <ErrorNote error={action.error} />
      <DataTable columns={['When', 'Type', 'Status', 'Details']} actions>
        {entries.map((entry) => (
          <tr key={entry.id}>
            <td>{formatDate(entry.createdAt)}</td>
            <td>{entry.type}</td>
            <td>
              <StatusBadge value={entry.status} />
              {typeof entry.metadata.statusCode === 'number' ? <span class="muted"> HTTP {entry.metadata.statusCode}</span> : null}
            </td>
            <td>
              {entry.message}
              {entry.emailId ? (
                <>
                  {' '}
                  <Link href={`/emails/${entry.emailId}`}>email</Link>
                </>
              ) : null}
            </td>
            <td>
              {entry.status === 'FAILED' && RESENDABLE.has(entry.type) ? (
                <button
                  type="button"
                  class="secondary small"
                  disabled={action.busy}
                  onClick={() =>
                    action.run(async () => {
                      await api.logs.resend(entry.id);
                      onResent();
                    })
                  }
                >
                  Resend
                </button>
              ) : null}
            </td>
          </tr>
        ))}
      </DataTable>
    </>
  );
}
