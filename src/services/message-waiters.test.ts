import { describe, expect, it } from 'vitest';
import { MemoryEventBus } from '../adapters/events/memory.event-bus.js';
import type { DomainEvent } from '../ports/event-bus.js';
import { MessageWaiters } from './message-waiters.js';

const inboxEvent = (inboxId: string, messageId: string, subject = 'Hello', from = 'a@example.com'): DomainEvent => ({
  type: 'inbox.message',
  tenantId: 't',
  environmentId: 'e',
  inboxId,
  timestamp: new Date().toISOString(),
  data: { inboxId, messageId, subject, from },
});

describe('MessageWaiters', () => {
  it('wakes only the waiters of the event inbox whose filters match', async () => {
    const bus = new MemoryEventBus();
    const waiters = new MessageWaiters(bus);
    const plain = waiters.wait('inbox-1', {}, 10_000);
    const filtered = waiters.wait('inbox-1', { subject: 'CODE' }, 10_000);
    const elsewhere = waiters.wait('inbox-2', {}, 10_000);
    await bus.publish(inboxEvent('inbox-1', 'm1', 'Welcome'));
    expect(await plain.message).toBe('m1');
    expect(waiters.size).toBe(2);
    await bus.publish(inboxEvent('inbox-1', 'm2', 'Your code'));
    expect(await filtered.message).toBe('m2');
    elsewhere.cancel();
    expect(await elsewhere.message).toBeUndefined();
    expect(waiters.size).toBe(0);
  });

  it('settles with undefined on timeout and on abort, and forgets the waiter', async () => {
    const waiters = new MessageWaiters(new MemoryEventBus());
    expect(await waiters.wait('inbox', {}, 5).message).toBeUndefined();
    const controller = new AbortController();
    const pending = waiters.wait('inbox', {}, 10_000, controller.signal);
    expect(waiters.size).toBe(1);
    controller.abort();
    expect(await pending.message).toBeUndefined();
    expect(waiters.size).toBe(0);
  });

  it('an event looks only at the waiters of its own inbox, however many wait elsewhere', async () => {
    const bus = new MemoryEventBus();
    const waiters = new MessageWaiters(bus);
    const idle = Array.from({ length: 10_000 }, (_, i) => waiters.wait(`idle-${i % 100}`, { subject: 'never' }, 60_000));
    const target = waiters.wait('busy-inbox', { subject: 'code' }, 60_000);
    let subjectReads = 0;
    const event = inboxEvent('busy-inbox', 'm1');
    Object.defineProperty(event.data, 'subject', {
      get: () => {
        subjectReads += 1;
        return 'Your code';
      },
    });
    await bus.publish(event);
    expect(await target.message).toBe('m1');
    // One read per waiter of busy-inbox (one waiter), none for the 10,000 elsewhere.
    expect(subjectReads).toBe(1);
    expect(waiters.size).toBe(10_000);
    waiters.close();
    expect(await Promise.all(idle.map((w) => w.message))).toEqual(Array(10_000).fill(undefined));
  });
});
