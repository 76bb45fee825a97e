import type { DomainEvent, EventBus, EventHandler } from '../../ports/event-bus.js';

/** One-process event bus: handlers run synchronously in publish order, each isolated from the others' errors. */
export class MemoryEventBus implements EventBus {
  private readonly handlers = new Set<EventHandler>();

  constructor(private readonly onHandlerError: (error: unknown) => void = () => {}) {}

  async publish(event: DomainEvent): Promise<void> {
    this.deliver(event);
  }

  /** Local delivery, also used by adapters that receive events from other nodes. */
  deliver(event: DomainEvent): void {
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

  async close(): Promise<void> {
    this.handlers.clear();
  }
}
