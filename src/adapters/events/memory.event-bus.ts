import { compareEventIds, eventIdAt, eventIdTime, REPLAY_MAX_EVENTS, REPLAY_WINDOW_MS } from '../../core/realtime.js';
import { withEventId } from './published-event.js';
import type { DomainEvent, EventBus, EventHandler, PublishedEvent } from '../../ports/event-bus.js';

/**
 * Every this many publishes, all tenants' events are trimmed to the window and the cap, so a tenant
 * holds at most this many events over the cap. Trimming on every publish instead cost ~20 µs of
 * main-thread CPU per event once a tenant was at the cap (a 10,000-element splice each time, D63).
 */
const SWEEP_EVERY_PUBLISHES = 1_000;

/** Hands out `<ms>-<seq>` ids that increase even when the clock stands still or steps back. */
export class EventIdClock {
  private lastMs = 0;
  private sequence = 0;

  next(now = Date.now()): string {
    if (now > this.lastMs) {
      this.lastMs = now;
      this.sequence = 0;
    } else {
      this.sequence += 1;
    }
    return eventIdAt(this.lastMs, this.sequence);
  }

  position(now = Date.now()): string {
    return now > this.lastMs ? eventIdAt(now) : eventIdAt(this.lastMs, this.sequence);
  }
}

/**
 * One-process event bus: handlers run synchronously in publish order, each isolated from the others'
 * errors. Keeps each tenant's last five minutes of events for resuming; `recent` returns at most
 * REPLAY_MAX_EVENTS of them.
 */
export class MemoryEventBus implements EventBus {
  private readonly handlers = new Set<EventHandler>();
  private readonly replay = new Map<string, PublishedEvent[]>();
  private readonly clock = new EventIdClock();
  private publishes = 0;

  constructor(private readonly onHandlerError: (error: unknown) => void = () => {}) {}

  async publish(event: DomainEvent): Promise<void> {
    const published = withEventId(event, this.clock.next());
    this.remember(published);
    this.deliver(published);
  }

  /** Local delivery, also used by adapters that receive events from other nodes. */
  deliver(event: PublishedEvent): void {
    for (const handler of this.handlers) {
      try {
        handler(event);
      } catch (error) {
        this.onHandlerError(error);
      }
    }
  }

  subscribe(handler: EventHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  async recent(tenantId: string, afterId: string): Promise<PublishedEvent[]> {
    const kept = this.trim(tenantId);
    return kept.filter((event) => compareEventIds(event.id, afterId) > 0);
  }

  position(): string {
    return this.clock.position();
  }

  async close(): Promise<void> {
    this.handlers.clear();
    this.replay.clear();
  }

  private remember(event: PublishedEvent): void {
    const kept = this.replay.get(event.tenantId) ?? [];
    kept.push(event);
    this.replay.set(event.tenantId, kept);
    this.publishes += 1;
    if (this.publishes % SWEEP_EVERY_PUBLISHES === 0) for (const tenantId of this.replay.keys()) this.trim(tenantId);
  }

  /** Drops what is older than the window or over the cap; forgets tenants with nothing left. */
  private trim(tenantId: string): PublishedEvent[] {
    const kept = this.replay.get(tenantId) ?? [];
    const oldest = Date.now() - REPLAY_WINDOW_MS;
    let drop = Math.max(0, kept.length - REPLAY_MAX_EVENTS);
    while (drop < kept.length && eventIdTime((kept[drop] as PublishedEvent).id) < oldest) drop += 1;
    if (drop > 0) kept.splice(0, drop);
    if (kept.length === 0) this.replay.delete(tenantId);
    return kept;
  }
}
