import type { EventType } from '../core/vocab.js';

/** Something that happened to a tenant's mail, published after it was committed. */
export interface DomainEvent {
  type: Exclude<EventType, 'connected' | 'heartbeat'>;
  tenantId: string;
  environmentId: string | null;
  /** Set for inbox.message, so inbox-scoped listeners can filter without reading data. */
  inboxId?: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/**
 * A DomainEvent as subscribers receive it: the bus gave it an id, `<ms>-<seq>`, the same on every
 * node and increasing per tenant (compare with compareEventIds), so SSE clients can resume after it.
 */
export interface PublishedEvent extends DomainEvent {
  id: string;
}

export type EventHandler = (event: PublishedEvent) => void;

/**
 * The only path from storage to listeners (SSE, IMAP IDLE, wait-for-message). Publishing never waits
 * for listeners; a handler that throws is isolated from the others. With Redis, events published on
 * one node reach subscribers on every node.
 */
export interface EventBus {
  publish(event: DomainEvent): Promise<void>;
  subscribe(handler: EventHandler): () => void;
  /**
   * The tenant's events published after `afterId` (exclusive), oldest first, from a bounded replay
   * buffer that keeps at least the last five minutes (fewer events when a tenant floods it).
   */
  recent(tenantId: string, afterId: string): Promise<PublishedEvent[]>;
  /** An id that sorts after every event published so far: where a new listener starts. */
  position(): string;
  close(): Promise<void>;
}
