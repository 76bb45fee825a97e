import type { EventBus, PublishedEvent } from '../ports/event-bus.js';

/** Case-insensitive substrings a waiting client asked for (wait-for-message `subject` and `from`). */
export interface WaitCriteria {
  subject?: string;
  from?: string;
}

export interface PendingWait {
  /** The id of the first matching inbox message published after registration; undefined on timeout or abort. */
  readonly message: Promise<string | undefined>;
  /** Stops waiting (idempotent); `message` settles with undefined. */
  cancel(): void;
}

interface Waiter {
  subject: string | undefined;
  from: string | undefined;
  settle(messageId: string | undefined): void;
}

const includesIgnoringCase = (value: unknown, needle: string | undefined): boolean =>
  needle === undefined || (typeof value === 'string' && value.toLowerCase().includes(needle));

/**
 * Long-poll waiters for inbox messages, woken by `inbox.message` events from the EventBus (so a
 * message stored on another node wakes them too, once the bus spans nodes). Waiters are indexed by
 * inbox id: an event costs one map lookup plus the waiters of its own inbox, however many clients
 * wait on other inboxes.
 */
export class MessageWaiters {
  private readonly byInbox = new Map<string, Set<Waiter>>();
  private readonly unsubscribe: () => void;

  constructor(events: EventBus) {
    this.unsubscribe = events.subscribe((event) => this.onEvent(event));
  }

  /** Registers at once (before the caller looks for existing messages, so none can slip between). */
  wait(inboxId: string, criteria: WaitCriteria, timeoutMs: number, signal?: AbortSignal): PendingWait {
    let settle!: (messageId: string | undefined) => void;
    const message = new Promise<string | undefined>((resolve) => {
      settle = resolve;
    });
    const waiters = this.byInbox.get(inboxId) ?? new Set<Waiter>();
    this.byInbox.set(inboxId, waiters);
    const onAbort = () => waiter.settle(undefined);
    const timer = setTimeout(onAbort, timeoutMs);
    const waiter: Waiter = {
      subject: criteria.subject?.toLowerCase(),
      from: criteria.from?.toLowerCase(),
      settle: (messageId) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        waiters.delete(waiter);
        if (waiters.size === 0 && this.byInbox.get(inboxId) === waiters) this.byInbox.delete(inboxId);
        settle(messageId);
      },
    };
    waiters.add(waiter);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    return { message, cancel: onAbort };
  }

  /** How many clients are waiting (all inboxes). */
  get size(): number {
    let total = 0;
    for (const waiters of this.byInbox.values()) total += waiters.size;
    return total;
  }

  close(): void {
    this.unsubscribe();
    for (const waiters of [...this.byInbox.values()]) for (const waiter of [...waiters]) waiter.settle(undefined);
  }

  private onEvent(event: PublishedEvent): void {
    if (event.type !== 'inbox.message' || event.inboxId === undefined) return;
    const waiters = this.byInbox.get(event.inboxId);
    if (waiters === undefined) return;
    const messageId = event.data.messageId;
    if (typeof messageId !== 'string') return;
    for (const waiter of [...waiters]) {
      if (includesIgnoringCase(event.data.subject, waiter.subject) && includesIgnoringCase(event.data.from, waiter.from)) waiter.settle(messageId);
    }
  }
}
