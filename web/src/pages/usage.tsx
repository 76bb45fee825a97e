import { api } from '../api.js';
import { ErrorNote, Loading, PageHeader, formatDate, useAsync, DataTable } from '../components/ui.js';

export function UsagePage() {
  const usage = useAsync(() => api.usage(), []);
  if (usage.data === undefined) return usage.loading ? <Loading /> : <ErrorNote error={usage.error} />;
  const { emails, plan, month, resetsAt, plans } = usage.data;
  const percent = emails.limit === 0 ? 100 : Math.min(100, Math.round((emails.used / emails.limit) * 100));
  return (
    <section>
      <PageHeader title="Usage & plan" />
      <div class="card">
        <h2>
          {month}: {emails.used.toLocaleString()} of {emails.limit.toLocaleString()} emails
        </h2>
        <progress max={100} value={percent} aria-label={`${percent}% of the monthly email quota used`} />
        <p class="muted">
          {emails.remaining.toLocaleString()} left · resets {formatDate(resetsAt)}
        </p>
      </div>
      <DataTable columns={['Plan', 'Requests per minute', 'Emails per month', 'Custom storage']}>
        {Object.entries(plans).map(([name, limits]) => (
          <tr key={name} class={name === plan.name ? 'current' : ''}>
            <td>
              {name}
              {name === plan.name ? ' (your plan)' : ''}
            </td>
            <td>{limits.requestsPerMinute.toLocaleString()}</td>
            <td>{limits.monthlyEmails.toLocaleString()}</td>
            <td>{limits.customStorage ? 'Yes' : 'No'}</td>
          </tr>
        ))}
      </DataTable>
      <p class="muted">
        {usage.data.limitsEnforced ? 'Plans are changed by the operator of this server.' : 'This server runs without limits (MAILROOM_LIMITS=off): no quota and no rate limit apply.'}
      </p>
    </section>
  );
}
