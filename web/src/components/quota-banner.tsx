import { api } from '../api.js';
import { Link, formatDate, useAsync } from './ui.js';

/**
 * Over quota, new mail is refused at RCPT TO (452 4.2.2) and never reaches this list: say so where
 * the mail would be, with the date the count starts again. Nothing on servers without limits.
 */
export function QuotaBanner() {
  const usage = useAsync(() => api.usage(), []);
  const data = usage.data;
  if (data === undefined || !data.limitsEnforced || data.emails.remaining > 0) return null;
  return (
    <p class="notice quota-banner" role="status">
      This account has received its {data.emails.limit.toLocaleString()} emails for {data.month}: new mail is refused until the quota
      resets on {formatDate(data.resetsAt)}. <Link href="/usage">Usage &amp; plan</Link>
    </p>
  );
}
