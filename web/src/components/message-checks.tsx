import { api } from '../api.js';
import { ErrorNote, Loading, useAsync } from './ui.js';

type HtmlCheck = Awaited<ReturnType<typeof api.emails.htmlCheck>>;
type LinkCheck = Awaited<ReturnType<typeof api.emails.linkCheck>>;
type LinkEntry = LinkCheck['links'][number];
type Finding = HtmlCheck['families'][number]['clients'][number]['unsupported'][number];

const scoreTone = (score: number) => (score >= 90 ? 'good' : score >= 60 ? 'neutral' : 'bad');

function Score({ value, label }: { value: number; label?: string }) {
  return <span class={`badge ${scoreTone(value)}`}>{label ? `${label} ${value}` : value}/100</span>;
}

/** Feature names as badges; the data set's notes show on hover and, for reading on a phone, below. */
function Findings({ items, tone, label }: { items: Finding[]; tone: 'bad' | 'neutral'; label: string }) {
  // The label repeats the column header for phones, where table rows become cards.
  if (items.length === 0) return null;
  const noted = items.filter((i) => i.notes.length > 0);
  return (
    <div class="check-findings">
      <span class="check-label">{label}:</span>
      {items.map((i) => (
        <span key={i.feature} class={`badge ${tone}`} title={i.notes.join('\n') || undefined}>
          {i.feature}
        </span>
      ))}
      {noted.length > 0 ? (
        <details>
          <summary>Notes ({noted.length})</summary>
          <ul>
            {noted.map((i) => (
              <li key={i.feature}>
                <strong>{i.feature}</strong>: {i.notes.join(' ')}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}

/** The "HTML check" tab: caniemail support of this email's HTML, per client family, on demand. */
export function HtmlCheckPanel({ id }: { id: string }) {
  const check = useAsync(() => api.emails.htmlCheck(id), [id]);
  if (check.loading) return <Loading label="Checking the HTML against email-client support data…" />;
  if (check.data === undefined) return <ErrorNote error={check.error} />;
  const report = check.data;
  return (
    <div class="message-check">
      <p>
        <Score value={report.score} label="Overall" /> across {report.families.reduce((n, f) => n + f.clients.length, 0)} clients ·{' '}
        <span class="muted">
          {report.dataset.name} data, updated {report.dataset.updatedAt.slice(0, 10)}
        </span>
      </p>
      {report.features.length === 0 ? <p class="success">Every feature this HTML uses is supported by every client checked.</p> : null}
      <table class="table check-clients" aria-label="Support per email client">
        <thead>
          <tr>
            <th>Client</th>
            <th>Score</th>
            <th>Not supported</th>
            <th>Partly supported</th>
          </tr>
        </thead>
        <tbody>
          {report.families.flatMap((family) =>
            family.clients.map((client) => (
              <tr key={client.client}>
                <td>
                  <strong>{family.name}</strong> <span class="muted">{client.platformName}</span>
                </td>
                <td>
                  <Score value={client.score} />
                </td>
                <td>
                  <Findings items={client.unsupported} tone="bad" label="Not supported" />
                </td>
                <td>
                  <Findings items={client.partial} tone="neutral" label="Partly supported" />
                </td>
              </tr>
            )),
          )}
        </tbody>
      </table>
      {report.features.length > 0 ? (
        <>
          <h3>Features in use with limited support</h3>
          <table class="table check-features" aria-label="Features in use">
            <thead>
              <tr>
                <th>Feature</th>
                <th>Type</th>
                <th>Not supported by</th>
                <th>Partly supported by</th>
              </tr>
            </thead>
            <tbody>
              {report.features.map((feature) => (
                <tr key={feature.title}>
                  <td>
                    <a href={feature.url} target="_blank" rel="noopener noreferrer">
                      {feature.title}
                    </a>
                  </td>
                  <td>{feature.category.toUpperCase()}</td>
                  <td>{feature.unsupportedBy}</td>
                  <td>{feature.partiallySupportedBy}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
      {report.clientsWithoutData.length > 0 ? (
        <p class="muted">Not scored (no data for a feature in use): {report.clientsWithoutData.map((c) => `${c.client} (${c.feature})`).join(', ')}</p>
      ) : null}
    </div>
  );
}

function LinkStatus({ link }: { link: LinkEntry }) {
  const tone = link.result === 'ok' ? 'good' : 'bad';
  return <span class={`badge ${tone}`}>{link.statusCode ?? link.error?.kind ?? 'error'}</span>;
}

/** "301 → 302 → 200": the hops a link took. */
function Chain({ link }: { link: LinkEntry }) {
  if (link.redirects.length === 0) return null;
  const codes = [...link.redirects.map((r) => String(r.statusCode)), link.statusCode === null ? '✕' : String(link.statusCode)];
  return (
    <div class="muted">
      {codes.join(' → ')} · ends at <span class="check-url">{link.finalUrl}</span>
    </div>
  );
}

/** The "Links" tab: every link and image of this email followed, on demand. */
export function LinkCheckPanel({ id }: { id: string }) {
  const check = useAsync(() => api.emails.linkCheck(id), [id]);
  if (check.loading) return <Loading label="Following every link and image (up to 5 s each)…" />;
  if (check.data === undefined) return <ErrorNote error={check.error} />;
  const report = check.data;
  return (
    <div class="message-check">
      <p>
        <span class="badge good">{report.summary.ok} ok</span> <span class={`badge ${report.summary.broken > 0 ? 'bad' : 'neutral'}`}>{report.summary.broken} broken</span>{' '}
        <span class={`badge ${report.summary.error > 0 ? 'bad' : 'neutral'}`}>{report.summary.error} failed</span>{' '}
        <button type="button" class="secondary small" onClick={check.reload}>
          Check again
        </button>
      </p>
      {report.truncated ? <p class="muted">This email has {report.total} links and images; the first {report.links.length} were checked.</p> : null}
      {report.links.length === 0 ? (
        <p class="muted">No http or https links or images in this email.</p>
      ) : (
        <table class="table check-links" aria-label="Link status">
          <thead>
            <tr>
              <th>Status</th>
              <th>URL</th>
              <th>Type</th>
              <th>Time</th>
            </tr>
          </thead>
          <tbody>
            {report.links.map((link) => (
              <tr key={link.url}>
                <td>
                  <LinkStatus link={link} />
                </td>
                <td>
                  <a class="check-url" href={link.url} target="_blank" rel="noopener noreferrer">
                    {link.url}
                  </a>
                  <Chain link={link} />
                  {link.error ? <div class="error">{link.error.message}</div> : null}
                </td>
                <td>{link.kind}</td>
                <td>{link.durationMs} ms</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
