import { useEffect, useRef } from 'preact/hooks';
import type { RealtimeEvent, Subscription } from '../../src/client/index.js';
import { api } from './api.js';

/**
 * One broadcast stream for the whole dashboard (the session JWT is accepted in broadcast mode only),
 * opened while at least one component listens. It reconnects after a second and resumes with
 * Last-Event-ID, so a blip loses nothing.
 */
type Listener = (event: RealtimeEvent) => void;
const listeners = new Set<Listener>();
let subscription: Subscription | undefined;
let connected = false;
const statusListeners = new Set<(connected: boolean) => void>();

function setConnected(value: boolean): void {
  connected = value;
  for (const listener of statusListeners) listener(value);
}

function open(): void {
  subscription = api.subscribe({
    mode: 'broadcast',
    reconnectDelayMs: 1000,
    onEvent(event) {
      if (event.type === 'connected') setConnected(true);
      if (event.type === 'disconnect') setConnected(false);
      for (const listener of listeners) listener(event);
    },
    onError() {
      setConnected(false);
    },
  });
}

export function useRealtime(listener: Listener): void {
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => {
    const forward: Listener = (event) => latest.current(event);
    listeners.add(forward);
    if (subscription === undefined) open();
    return () => {
      listeners.delete(forward);
      if (listeners.size === 0) {
        subscription?.close();
        subscription = undefined;
        setConnected(false);
      }
    };
  }, []);
}

export function onConnectionChange(listener: (connected: boolean) => void): () => void {
  statusListeners.add(listener);
  listener(connected);
  return () => statusListeners.delete(listener);
}
