import { afterEach, describe, expect, it, vi } from 'vitest';
import { REPLAY_MAX_EVENTS, REPLAY_WINDOW_MS } from '../../core/realtime.js';
import type { DomainEvent } from '../../ports/event-bus.js';
import { MemoryEventBus } from './memory.event-bus.js';

const event = (tenantId: string, n: number): DomainEvent => ({ type: 'email.received', tenantId, environmentId: null, timestamp: '', data: { n } });

describe('MemoryEventBus replay', () => {
  afterEach(() => vi.useRealTimers());

  it('returns at most the cap, the newest events in order, however far past the cap the tenant published', async () => {
    const bus = new MemoryEventBus();
    const published = REPLAY_MAX_EVENTS + 1_500;
    for (let n = 0; n < published; n++) await bus.publish(event('t1', n));
    await bus.publish(event('t2', 0));

    const kept = await bus.recent('t1', '0-0');
    expect(kept).toHaveLength(REPLAY_MAX_EVENTS);
    expect(kept[0]?.data.n).toBe(published - REPLAY_MAX_EVENTS);
    expect(kept.at(-1)?.data.n).toBe(published - 1);
    expect(await bus.recent('t2', '0-0')).toHaveLength(1);
  });

  it('forgets events older than the window', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const bus = new MemoryEventBus();
    await bus.publish(event('t1', 0));
    vi.setSystemTime(1_000_000 + REPLAY_WINDOW_MS + 1);
    await bus.publish(event('t1', 1));

    expect((await bus.recent('t1', '0-0')).map((e) => e.data.n)).toEqual([1]);
  });
});
