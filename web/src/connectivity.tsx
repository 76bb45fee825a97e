import { useEffect, useState } from 'preact/hooks';

/**
 * Whether the server answers. A request that fails at the network level (not an HTTP error) marks
 * it unreachable; from then on /healthz is polled until it answers, and the banner goes away.
 */
const RETRY_MS = 3000;
let reachable = true;
let polling: ReturnType<typeof setTimeout> | undefined;
const listeners = new Set<(reachable: boolean) => void>();

function set(next: boolean): void {
  if (reachable === next) return;
  reachable = next;
  for (const listener of listeners) listener(next);
}

function poll(): void {
  polling = setTimeout(() => {
    fetch('/healthz', { cache: 'no-store' }).then(
      (response) => {
        polling = undefined;
        if (response.ok) set(true);
        else poll();
      },
      () => poll(),
    );
  }, RETRY_MS);
}

export function reportUnreachable(): void {
  set(false);
  if (polling === undefined) poll();
}

/** Wraps a fetch so that a network failure is reported (and still thrown to the caller). */
export const watchedFetch =
  (inner: typeof fetch): typeof fetch =>
  async (input, init) => {
    try {
      return await inner(input, init);
    } catch (error) {
      if (!(error instanceof DOMException && error.name === 'AbortError')) reportUnreachable();
      throw error;
    }
  };

export function useReachable(): boolean {
  const [state, setState] = useState(reachable);
  useEffect(() => {
    listeners.add(setState);
    return () => void listeners.delete(setState);
  }, []);
  return state;
}

export function OfflineBanner() {
  const online = useReachable();
  if (online) return null;
  return (
    <p class="offline-banner" role="alert">
      The Mailroom server cannot be reached. Retrying every {RETRY_MS / 1000} seconds…
    </p>
  );
}
