import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Email, EmailReceivedData, Environment } from '../../../src/client/index.js';
import { api } from '../api.js';
import { Empty, ErrorNote, Link, Loading, PageHeader, formatDate, useAction, useAsync } from '../components/ui.js';
import { PaperclipIcon } from '../components/icons.js';
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
  /** q: the whole mail (docs/search.md); the others: one field, as a substring. */
  field: 'q' | 'subject' | 'from' | 'to';
  query: string;
  read: '' | 'true' | 'false';
  environmentId: string;
  after: string;
  before: string;
}

const PER_PAGE = 100;
const ROW_HEIGHT = 64;
const NO_FILTERS: Filters = { field: 'q', query: '', read: '', environmentId: '', after: '', before: '' };

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

/** The same filters as a bulk action's body: "everything matching" (docs/api.md#bulk-actions). */
function bulkFilter(filters: Filters) {
  const text = filters.query && filters.field !== 'q' ? { [filters.field]: filters.query } : {};
  return {
    filter: {
      ...text,
      ...(filters.read ? { read: filters.read === 'true' } : {}),
      ...(filters.environmentId ? { environmentId: filters.environmentId } : {}),
      ...(filters.after ? { createdAfter: filters.after } : {}),
      ...(filters.before ? { createdBefore: filters.before } : {}),
    },
    ...(filters.query && filters.field === 'q' ? { q: filters.query } : {}),
  };
}

/** Whether a live email belongs in the filtered list (the environment filter is checked by the server). */
function matchesLive(row: Row, filters: Filters): boolean {
  const needle = filters.query.toLowerCase();
  // A whole-mail search is the server's to judge; live mail shows again when the search is cleared.
  if (needle && filters.field === 'q') return false;
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
  // A search most emails match is counted up to 1,000 (docs/search.md): the total then reads "1000+".
  const [totalAtLeast, setTotalAtLeast] = useState(false);
  const generation = useRef(0);
  const selection = useSelection(rows);
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
          setTotalAtLeast(result.totalItemsIsLowerBound);
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
    selection.clear();
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
      setTotal((t) => (t === undefined || t === 0 ? t : t - 1));
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
        <span class="muted">{total === undefined ? '' : `${total}${totalAtLeast ? '+' : ''} total`} · j/k to move, Enter to open</span>
      </PageHeader>
      <QuotaBanner />
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label class="sr-only" for="search-field">
          Search in
        </label>
        <select id="search-field" value={filters.field} onChange={(e) => set({ field: e.currentTarget.value as Filters['field'] })}>
          <option value="q">Everything</option>
          <option value="subject">Subject</option>
          <option value="from">From</option>
          <option value="to">To</option>
        </select>
        <label class="sr-only" for="search-query">
          Search text
        </label>
        <input
          id="search-query"
          type="search"
          placeholder={filters.field === 'q' ? 'Search: words, from:, subject:, "phrase", -word, is:unread…' : 'Search…'}
          value={filters.query}
          onInput={onSearch}
        />
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
      {rows.length > 0 ? (
        <BulkBar
          selection={selection}
          total={total ?? rows.length}
          atLeast={totalAtLeast}
          filters={filters}
          onDone={() => setFilters((f) => ({ ...f }))}
        />
      ) : null}
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
            <div class="email-item">
              <input
                type="checkbox"
                class="row-check"
                aria-label={`Select ${row.subject || 'email'}`}
                checked={selection.allMatching || selection.ids.has(row.id)}
                onClick={(event) => selection.toggle(index, event.shiftKey)}
              />
              <Link href={`/emails/${row.id}`} class={`email-row ${row.read ? 'read' : 'unread'} ${index === active ? 'active' : ''}`}>
                <span class="from" title={row.from}>
                  {row.from}
                </span>
                <span class="subject" title={row.subject}>
                  {row.read ? null : <span class="dot" aria-label="unread" />}
                  {row.subject || '(no subject)'}
                  {row.hasAttachments ? <PaperclipIcon /> : null}
                </span>
                <span class="snippet">{row.snippet}</span>
                <time dateTime={row.createdAt}>{formatDate(row.createdAt)}</time>
              </Link>
            </div>
          )}
        />
      ) : null}
      {rows.length > 0 && loading ? <Loading label="Loading more…" /> : null}
    </section>
  );
}

interface Selection {
  ids: Set<string>;
  /** Every email the filters match, loaded or not: bulk actions then send the filter, not ids. */
  allMatching: boolean;
  toggle(index: number, extend: boolean): void;
  selectAllMatching(): void;
  clear(): void;
}

/** Checkbox selection with shift-click ranges, over the rows as loaded. */
function useSelection(rows: Row[]): Selection {
  const [ids, setIds] = useState<Set<string>>(new Set());
  const [allMatching, setAllMatching] = useState(false);
  const anchor = useRef(-1);
  return {
    ids,
    allMatching,
    toggle(index, extend) {
      const row = rows[index];
      if (row === undefined) return;
      const next = new Set(allMatching ? rows.map((r) => r.id) : ids);
      const on = !next.has(row.id);
      const [from, to] = extend && anchor.current >= 0 ? [Math.min(anchor.current, index), Math.max(anchor.current, index)] : [index, index];
      for (const r of rows.slice(from, to + 1)) {
        if (on) next.add(r.id);
        else next.delete(r.id);
      }
      anchor.current = index;
      setAllMatching(false);
      setIds(next);
    },
    selectAllMatching() {
      setAllMatching(true);
    },
    clear() {
      anchor.current = -1;
      setAllMatching(false);
      setIds(new Set());
    },
  };
}

/** Select all, and the bulk actions over the selection, each confirmed with the number it touches. */
function BulkBar(props: { selection: Selection; total: number; atLeast: boolean; filters: Filters; onDone: () => void }) {
  const { selection, filters } = props;
  const total = `${props.total}${props.atLeast ? '+' : ''}`;
  const action = useAction();
  const count = selection.allMatching ? total : String(selection.ids.size);
  const target = () => (selection.allMatching ? bulkFilter(filters) : { ids: [...selection.ids] });
  const run = (verb: string, work: () => Promise<unknown>) => {
    if (!window.confirm(`${verb} ${count} email${count === '1' ? '' : 's'}?`)) return;
    void action.run(work).then((ok) => {
      if (!ok) return;
      selection.clear();
      props.onDone();
    });
  };
  return (
    <div class="bulk-bar" role="toolbar" aria-label="Bulk actions">
      <label class="inline">
        <input
          type="checkbox"
          aria-label="Select all matching"
          checked={selection.allMatching}
          onChange={(e) => (e.currentTarget.checked ? selection.selectAllMatching() : selection.clear())}
        />
        <span>{selection.allMatching ? `All ${total} matching selected` : `Select all ${total} matching`}</span>
      </label>
      {count !== '0' ? (
        <>
          <span class="muted" data-testid="selected-count">
            {count} selected
          </span>
          <button type="button" class="danger small" disabled={action.busy} onClick={() => run('Delete', () => api.emails.deleteMany(target()))}>
            Delete
          </button>
          <button type="button" class="secondary small" disabled={action.busy} onClick={() => run('Mark read:', () => api.emails.markManyRead({ ...target(), read: true }))}>
            Mark read
          </button>
          <button type="button" class="secondary small" disabled={action.busy} onClick={() => run('Mark unread:', () => api.emails.markManyRead({ ...target(), read: false }))}>
            Mark unread
          </button>
          <button type="button" class="secondary small" onClick={selection.clear}>
            Clear selection
          </button>
        </>
      ) : null}
      <ErrorNote error={action.error} />
    </div>
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
