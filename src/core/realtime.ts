import type { Caller } from './api-key.js';
import type { EventType } from './vocab.js';

/** The last event of a stream the server closes; `data.reason` says why. Not a spec event type. */
export const DISCONNECT_EVENT = 'disconnect' as const;
export const DISCONNECT_REASONS = ['slow_consumer', 'shutdown', 'key_revoked', 'session_ended'] as const;
export type DisconnectReason = (typeof DISCONNECT_REASONS)[number];

export type StreamEventType = EventType | typeof DISCONNECT_EVENT;

/** The JSON envelope of spec 2.11, carried in the SSE `data:` field. */
export interface EventEnvelope {
  type: StreamEventType;
  timestamp: string;
  data: Record<string, unknown>;
}

/** Event ids are `<milliseconds>-<sequence>` (the Redis stream id format), ordered by time then sequence. */
export const EVENT_ID = /^\d{1,16}-\d{1,16}$/;

export function compareEventIds(a: string, b: string): number {
  const [aMs = 0, aSeq = 0] = a.split('-').map(Number);
  const [bMs = 0, bSeq = 0] = b.split('-').map(Number);
  return aMs - bMs || aSeq - bSeq;
}

export function eventIdAt(ms: number, sequence = 0): string {
  return `${ms}-${sequence}`;
}

export function eventIdTime(id: string): number {
  return Number(id.split('-')[0]);
}

/** What a stream shows: its caller's tenant, optionally narrowed to one environment. */
export interface StreamScope {
  caller: Caller;
  environmentId: string | null;
}

interface VisibleEvent {
  type: string;
  tenantId: string;
  environmentId: string | null;
  inboxId?: string;
}

/**
 * Tenant first, then environment (the key's own scope and the stream's filter), then inbox-scoped
 * keys (spec 5.4): those see only inbox.message events of their inbox.
 */
export function isVisible(scope: StreamScope, event: VisibleEvent): boolean {
  const { caller } = scope;
  if (event.tenantId !== caller.tenantId) return false;
  if (caller.environmentId !== null && event.environmentId !== caller.environmentId) return false;
  if (scope.environmentId !== null && event.environmentId !== scope.environmentId) return false;
  if (caller.inboxId !== null) return event.type === 'inbox.message' && event.inboxId === caller.inboxId;
  return true;
}

/** Resume window of spec-level "events missed in the last five minutes", and a per-tenant cap on it. */
export const REPLAY_WINDOW_MS = 5 * 60_000;
export const REPLAY_MAX_EVENTS = 10_000;
