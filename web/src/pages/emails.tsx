import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Email, EmailReceivedData, Environment } from '../../../src/client/index.js';
import { api } from '../api.js';
import { Empty, ErrorNote, Link, Loading, PageHeader, formatDate, useAsync } from '../components/ui.js';
import { VirtualList } from '../components/virtual-list.js';
import { QuotaBanner } from '../components/quota-banner.js';
import { useRealtime } from '../realtime.js';
import { navigate } from '../router.js';

/** What a list row needs; a live email.received event carries all of it, so new mail shows without a fetch. */
interface Row {
  id: string;
  from: string;
  subject: string;
  snippet: string;
  createdAt: string;
  read: boolean;
  hasAttachments: boolean;
  to: string[];
}

interface Filters {
  field: 'subject' | 'from' | 'to';
  query: string;
  read: '' | 'true' | 'false';
  environmentId: string;
  after: string;
  before: string;
}

const PER_PAGE = 100;
const ROW_HEIGHT = 64;
const NO_FILTERS: Filters = { field: 'subject', query: '', read: '', environmentId: '', after: '', before: '' };

const fromEmail = (email: Email): Row => ({
  id: email.id,
  from: email.from,
  subject: email.subject,
  snippet: email.snippet,
  createdAt: email.createdAt,
  read: email.read,
  hasAttachments: email.hasAttachments,
  to: email.to,
});

const fromEvent = (data: EmailReceivedData): Row => ({ ...data, snippet: '', read: false });

function listQuery(filters: Filters, page: number) {
  return {
    page,
    perPage: PER_PAGE,
    ...(filters.query ? { [filters.field]: filters.query } : {}),
    ...(filters.read ? { 'filter.read': filters.read === 'true' } : {}),
    ...(filters.environmentId ? { 'filter.environmentId': filters.environmentId } : {}),
    ...(filters.after ? { 'filter.createdAfter': filters.after } : {}),
    ...(filters.before ? { 'filter.createdBefore': filters.before } : {}),
  };
}

/** Whether a live email belongs in the filtered list (the environment filter is checked by the server). */
function matchesLive(row: Row, filters: Filters): boolean {
  const needle = filters.query.toLowerCase();
  const haystack = filters.field === 'to' ? row.to.join(' ') : filters.field === 'from' ? row.from : row.subject;
  if (needle && !haystack.toLowerCase().includes(needle)) return false;
  if (filters.read === 'true') return false;
  if (filters.before && row.createdAt.slice(0, 10) > filters.before) return false;
  return true;
}

export function EmailsPage() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [rows, setRows] = useState<Row[]>([]);
  const [page, setPage] = useState(0);
  const [hasNext, setHasNext] = useState(true);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>();
  const [active, setActive] = useState(-1);
  const [total, setTotal] = useState<number | undefined>();
  const generation = useRef(0);
  const environments = useAsync(() => api.environments.list().then((r) => r.data as Environment[]), []);
  const inboxes = useAsync(() => api.inboxes.list({ perPage: 5 }), []);

  const loadPage = useCallback(
    (next: number, current: Filters) => {
      const mine = generation.current;
      setLoading(true);
      api.emails.list(listQuery(current, next)).then(
        (result) => {
          if (mine !== generation.current) return;
          setRows((existing) => {
            const seen = new Set(existing.map((r) => r.id));
            return [...existing, ...result.data.map(fromEmail).filter((r) => !seen.has(r.id))];
          });
          setPage(next);
          setHasNext(result.hasNextPage);
          setTotal(result.totalItems);
          setLoading(false);
        },
        (caught: unknown) => {
          if (mine !== generation.current) return;
          setError(caught);
          setLoading(false);
        },
      );
    },
    [],
  );

  useEffect(() => {
    generation.current += 1;
    setRows([]);
    setActive(-1);
    latest.current.active = -1;
    setError(undefined);
    setHasNext(true);
    loadPage(1, filters);
  }, [filters, loadPage]);

  useRealtime((event) => {
    if (event.type === 'email.received') {
      const row = fromEvent(event.data);
      if (!matchesLive(row, filters)) return;
      if (filters.environmentId) {
        void api.emails.get(row.id).then((email) => email.environmentId === filters.environmentId && setRows((r) => (r.some((x) => x.id === email.id) ? r : [fromEmail(email), ...r])));
        return;
      }
      setRows((r) => (r.some((x) => x.id === row.id) ? r : [row, ...r]));
      setTotal((t) => (t === undefined ? t : t + 1));
      // The event has no snippet: fill it in once the row is already on screen.
      void api.emails.get(row.id).then((email) => setRows((r) => r.map((x) => (x.id === email.id ? fromEmail(email) : x))), () => undefined);
    } else if (event.type === 'email.updated' && event.data.changes.read !== undefined) {
      const read = event.data.changes.read;
      setRows((r) => r.map((x) => (x.id === event.data.id ? { ...x, read } : x)));
    } else if (event.type === 'email.deleted') {
      setRows((r) => r.filter((x) => x.id !== event.data.id));
    }
  });

  // Keys can come faster than renders: the handler reads the latest rows and position from refs.
  const latest = useRef({ rows, active });
  latest.current.rows = rows;
  useEffect(() => {
    const move = (to: number) => {
      latest.current.active = to;
      setActive(to);
    };
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      if (target.closest('input, select, textarea') || event.metaKey || event.ctrlKey || event.altKey) return;
      const { rows: current, active: index } = latest.current;
      if (event.key === 'j') move(Math.min(current.length - 1, index + 1));
      else if (event.key === 'k') move(Math.max(0, index - 1));
      else if ((event.key === 'Enter' || event.key === 'o') && current[index]) navigate(`/emails/${current[index].id}`);
      else return;
      event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const onEndReached = () => {
    if (!loading && hasNext && error === undefined && page > 0) loadPage(page + 1, filters);
  };
  const set = (patch: Partial<Filters>) => setFilters((f) => ({ ...f, ...patch }));
  const onSearch = useMemo(() => debounce((query: string) => setFilters((f) => ({ ...f, query }))), []);
  const filtered = JSON.stringify(filters) !== JSON.stringify(NO_FILTERS);
  const firstInbox = inboxes.data?.data[0];

  return (
    <section class="emails-page">
      <PageHeader title="Emails">
        <span class="muted">{total === undefined ? '' : `${total} total`} · j/k to move, Enter to open</span>
      </PageHeader>
      <QuotaBanner />
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label class="sr-only" for="search-field">
          Search in
        </label>
        <select id="search-field" value={filters.field} onChange={(e) => set({ field: e.currentTarget.value as Filters['field'] })}>
          <option value="subject">Subject</option>
          <option value="from">From</option>
          <option value="to">To</option>
        </select>
        <label class="sr-only" for="search-query">
          Search text
        </label>
        <input id="search-query" type="search" placeholder="Search…" value={filters.query} onInput={onSearch} />
        <label class="inline">
          <span class="sr-only">Read state</span>
          <select value={filters.read} onChange={(e) => set({ read: e.currentTarget.value as Filters['read'] })}>
            <option value="">All</option>
            <option value="false">Unread</option>
            <option value="true">Read</option>
          </select>
        </label>
        <label class="inline">
          <span class="sr-only">Environment</span>
          <select value={filters.environmentId} onChange={(e) => set({ environmentId: e.currentTarget.value })}>
            <option value="">All environments</option>
            {(environments.data ?? []).map((env) => (
              <option key={env.id} value={env.id}>
                {env.name}
              </option>
            ))}
          </select>
        </label>
        <label class="inline">
          <span>From</span>
          <input type="date" value={filters.after} onChange={(e) => set({ after: e.currentTarget.value })} />
        </label>
        <label class="inline">
          <span>to</span>
          <input type="date" value={filters.before} onChange={(e) => set({ before: e.currentTarget.value })} />
        </label>
        {filtered ? (
          <button type="button" class="secondary small" onClick={() => setFilters(NO_FILTERS)}>
            Clear
          </button>
        ) : null}
      </form>
      <ErrorNote error={error} />
      {rows.length === 0 && loading ? <Loading /> : null}
      {rows.length === 0 && !loading && error === undefined ? (
        <Empty>
          {filtered ? (
            <p>No emails match these filters.</p>
          ) : (
            <>
              <p class="waiting" role="status">
                <span class="pulse" aria-hidden="true" /> Waiting for your first email…
              </p>
              {firstInbox ? (
                <p>
                  Send a message to <code data-testid="first-address">{firstInbox.address}</code> (SMTP, see the server's start banner for host and port): it appears here the moment it arrives.
                </p>
              ) : (
                <p>
                  <Link href="/inboxes">Create an inbox</Link> to get an address, then send mail to it.
                </p>
              )}
            </>
          )}
        </Empty>
      ) : null}
      {rows.length > 0 ? (
        <VirtualList
          label="Emails"
          items={rows}
          rowHeight={ROW_HEIGHT}
          keyOf={(row) => row.id}
          activeIndex={active}
          onEndReached={onEndReached}
          renderRow={(row, index) => (
            <Link href={`/emails/${row.id}`} class={`email-row ${row.read ? 'read' : 'unread'} ${index === active ? 'active' : ''}`}>
              <span class="from">{row.from}</span>
              <span class="subject">
                {row.read ? null : <span class="dot" aria-label="unread" />}
                {row.subject || '(no subject)'}
                {row.hasAttachments ? <span aria-label="has attachments"> 📎</span> : null}
              </span>
              <span class="snippet">{row.snippet}</span>
              <time dateTime={row.createdAt}>{formatDate(row.createdAt)}</time>
            </Link>
          )}
        />
      ) : null}
      {rows.length > 0 && loading ? <Loading label="Loading more…" /> : null}
    </section>
  );
}

/** Search as the user types, without one request per keystroke. */
function debounce(apply: (value: string) => void): (event: Event) => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (event) => {
    const value = (event.currentTarget as HTMLInputElement).value.trim();
    clearTimeout(timer);
    timer = setTimeout(() => apply(value), 250);
  };
}
