import type { ComponentChildren, TargetedSubmitEvent } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../api.js';
import { onLinkClick } from '../router.js';

export function Link(props: { href: string; class?: string; children: ComponentChildren; 'aria-current'?: 'page' | undefined }) {
  return (
    <a href={props.href} class={props.class} aria-current={props['aria-current']} onClick={(event) => onLinkClick(event, props.href)}>
      {props.children}
    </a>
  );
}

export interface AsyncState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
  setData: (update: (current: T | undefined) => T | undefined) => void;
}

/** Loads `load()` when `deps` change; `reload` runs it again. Out-of-order answers are dropped. */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): AsyncState<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const generation = useRef(0);
  const run = useCallback(() => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    load().then(
      (data) => mine === generation.current && setState({ data, error: undefined, loading: false }),
      (error: unknown) => mine === generation.current && setState((s) => ({ ...s, error, loading: false })),
    );
  }, deps);
  useEffect(run, [run]);
  const setData = useCallback((update: (current: T | undefined) => T | undefined) => setState((s) => ({ ...s, data: update(s.data) })), []);
  return { ...state, reload: run, setData };
}

/** Runs a form action with a busy flag and keeps the API's error message for display. */
export function useAction(): { busy: boolean; error: string | undefined; run: (action: () => Promise<unknown>) => Promise<boolean>; clear: () => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (caught) {
      setError(errorMessage(caught));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: () => setError(undefined) };
}

export function ErrorNote({ error }: { error: unknown }) {
  if (error === undefined || error === null || error === '') return null;
  return (
    <p class="error" role="alert">
      {typeof error === 'string' ? error : errorMessage(error)}
    </p>
  );
}

export const Loading = ({ label = 'Loading…' }: { label?: string }) => (
  <p class="muted" role="status" aria-live="polite">
    <span class="spinner" aria-hidden="true" /> {label}
  </p>
);

export const Empty = ({ children }: { children: ComponentChildren }) => <div class="empty">{children}</div>;

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Mailroom`;
  }, [title]);
  return (
    <header class="page-header">
      <h1>{title}</h1>
      <div class="actions">{children}</div>
    </header>
  );
}

export function CopyButton({ value, label = 'Copy', class: extra }: { value: string; label?: string; class?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard?.writeText(value).catch(() => undefined);
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <button type="button" class={`secondary small ${extra ?? ''}`} onClick={copy} aria-label={`${label}: ${value.slice(0, 40)}`}>
      {copied ? 'Copied' : label}
    </button>
  );
}

/** A secret the API shows only once (API key, webhook signing secret). */
export function SecretOnce({ title, value, onDone }: { title: string; value: string; onDone: () => void }) {
  return (
    <div class="secret-once" role="alert" data-testid="secret-once">
      <strong>{title}</strong>
      <p>Copy it now: it is shown only once.</p>
      <div class="copy-row">
        <code class="secret-value">{value}</code>
        <CopyButton value={value} />
      </div>
      <button type="button" class="small" onClick={onDone}>
        I have saved it
      </button>
    </div>
  );
}

export function Field(props: { label: string; hint?: string; children: ComponentChildren }) {
  return (
    <label class="field">
      <span class="label">{props.label}</span>
      {props.children}
      {props.hint === undefined ? null : <span class="hint">{props.hint}</span>}
    </label>
  );
}

/** A destructive button that asks once more before acting. */
export function ConfirmButton(props: { label: string; confirm: string; onConfirm: () => void; disabled?: boolean }) {
  return (
    <button type="button" class="danger small" disabled={props.disabled} onClick={() => window.confirm(props.confirm) && props.onConfirm()}>
      {props.label}
    </button>
  );
}

export const formatDate = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : '—');

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function StatusBadge({ value }: { value: string }) {
  const tone = /^(pass|success|verified|active)$/i.test(value) ? 'good' : /^(fail|failed|permerror|inactive)$/i.test(value) ? 'bad' : 'neutral';
  return <span class={`badge ${tone}`}>{value}</span>;
}

export function Pager(props: { page: number; hasNext: boolean; onPage: (page: number) => void }) {
  if (props.page === 1 && !props.hasNext) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" class="secondary small" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
        Previous
      </button>
      <span>Page {props.page}</span>
      <button type="button" class="secondary small" disabled={!props.hasNext} onClick={() => props.onPage(props.page + 1)}>
        Next
      </button>
    </nav>
  );
}

export type FormEvent = TargetedSubmitEvent<HTMLFormElement>;

/** The value of a named input of the submitted form. */
export const formValue = (event: FormEvent, name: string): string => {
  const element = event.currentTarget.elements.namedItem(name);
  return element instanceof HTMLInputElement || element instanceof HTMLSelectElement || element instanceof HTMLTextAreaElement ? element.value.trim() : '';
};

/**
 * Cells never break inside a word: a long one is cut with an ellipsis and its full text becomes the
 * tooltip. On a phone each row is a card, each cell labelled with its column (data-label).
 */
function useCellLabels(columns: string[]) {
  const wrap = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    for (const row of wrap.current?.querySelectorAll('tbody tr') ?? []) {
      for (const [index, cell] of Array.from((row as HTMLTableRowElement).cells).entries()) {
        const label = columns[index];
        if (label !== undefined) cell.dataset.label = label;
        if (cell.scrollWidth > cell.clientWidth) cell.title = cell.textContent ?? '';
        else cell.removeAttribute('title');
      }
    }
  });
  return wrap;
}

/** A scrollable table with a header row of column names; `actions` adds a last column whose header only screen readers read. */
export function DataTable(props: { columns: string[]; actions?: boolean; children: ComponentChildren }) {
  const wrap = useCellLabels(props.columns);
  return (
    <div class="table-wrap" ref={wrap}>
      <table class="table">
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th scope="col" key={column}>
                {column}
              </th>
            ))}
            {props.actions ? (
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
