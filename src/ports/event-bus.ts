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

export type EventHandler = (event: DomainEvent) => void;

/**
 * The only path from storage to listeners (SSE, IMAP IDLE, wait-for-message). Publishing never waits
 * for listeners; a handler that throws is isolated from the others. With Redis, events published on
 * one node reach subscribers on every node.
 */
export interface EventBus {
  publish(event: DomainEvent): Promise<void>;
  subscribe(handler: EventHandler): () => void;
  close(): Promise<void>;
}
