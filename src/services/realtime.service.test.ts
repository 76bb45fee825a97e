import { describe, expect, it } from 'vitest';
import { MemoryConnectionGroups } from '../adapters/events/memory.connection-groups.js';
import { MemoryEventBus } from '../adapters/events/memory.event-bus.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { Caller } from '../core/api-key.js';
import { RealtimeService } from './realtime.service.js';
import type { StreamMessage, StreamSink } from './realtime-messages.js';

const caller: Caller = { tenantId: 't1', keyId: 'k1', environmentId: null, inboxId: null, scopes: ['api'] };
const noRepos = {} as Repositories;

class FakeSink implements StreamSink {
  readonly received: Array<{ id: string; type: string; data: Record<string, unknown> }> = [];
  accept = true;
  final: StreamMessage | undefined;
  private listener: (() => void) | undefined;
  send(message: StreamMessage): boolean {
    if (this.accept) this.received.push({ id: message.id, ...JSON.parse(message.json) });
    return this.accept;
  }
  close(final: StreamMessage): void {
    this.final ??= final;
    this.listener?.();
  }
  onClose(listener: () => void): void {
    this.listener = listener;
  }
}

const disconnectMessageFor = (id: string): StreamMessage => ({ id, json: '{"type":"disconnect"}' });

const setup = () => {
  const bus = new MemoryEventBus();
  const realtime = new RealtimeService(bus, new MemoryConnectionGroups(), noRepos, 1024, (error) => {
    throw error;
  });
  const publish = (subject: string) => bus.publish({ type: 'email.received', tenantId: 't1', environmentId: null, timestamp: new Date().toISOString(), data: { subject } });
  return { bus, realtime, publish };
};

/** A group store where another node already chose `staleChoice` for every event (it has since closed). */
class StaleChoiceGroups extends MemoryConnectionGroups {
  staleChoice: string | undefined;
  override async choose(group: string, eventId: string, goneMemberId?: string): Promise<string | undefined> {
    if (goneMemberId === undefined && this.staleChoice !== undefined) return this.staleChoice;
    return super.choose(group, eventId, goneMemberId);
  }
}

/** A group store whose members' presence can lapse, as it does when their node is slow to refresh it. */
class LapsingGroups extends MemoryConnectionGroups {
  readonly joined: Array<{ group: string; memberId: string }> = [];
  override async join(group: string, memberId: string): Promise<void> {
    this.joined.push({ group, memberId });
    await super.join(group, memberId);
  }
  override async refresh(members: ReadonlyArray<{ group: string; memberId: string }> = []): Promise<void> {
    for (const { group, memberId } of members) await super.join(group, memberId);
  }
  async lapseAll(): Promise<void> {
    for (const { group, memberId } of this.joined) await this.leave(group, memberId);
  }
}

describe('RealtimeService', () => {
  it('still delivers each event exactly once when every member’s presence lapsed while its stream is open', async () => {
    const bus = new MemoryEventBus();
    const groups = new LapsingGroups();
    const fail = (error: unknown) => {
      throw error;
    };
    const nodeA = new RealtimeService(bus, groups, noRepos, 1024 * 1024, fail);
    const nodeB = new RealtimeService(bus, groups, noRepos, 1024 * 1024, fail);
    const sinks = [new FakeSink(), new FakeSink(), new FakeSink()];
    await nodeA.open({ caller, mode: 'distributed' }, sinks[0] as FakeSink);
    await nodeA.open({ caller, mode: 'distributed' }, sinks[1] as FakeSink);
    await nodeB.open({ caller, mode: 'distributed' }, sinks[2] as FakeSink);
    await groups.lapseAll();
    const subjects = Array.from({ length: 30 }, (_, i) => `lapsed-${i}`);
    for (const subject of subjects) await bus.publish({ type: 'email.received', tenantId: 't1', environmentId: null, timestamp: new Date().toISOString(), data: { subject } });
    await new Promise((resolve) => setImmediate(resolve));
    const got = sinks.flatMap((sink) => sink.received.filter((e) => e.type === 'email.received').map((e) => e.data.subject as string));
    expect(got.sort()).toEqual([...subjects].sort());
  });

  it('hands an event chosen for a member that closed on its node to a member on another node', async () => {
    const bus = new MemoryEventBus();
    const groups = new StaleChoiceGroups();
    const fail = (error: unknown) => {
      throw error;
    };
    const nodeA = new RealtimeService(bus, groups, noRepos, 1024, fail);
    const nodeB = new RealtimeService(bus, groups, noRepos, 1024, fail);
    const onA = new FakeSink();
    const onB = new FakeSink();
    await nodeA.open({ caller, mode: 'distributed' }, onA);
    await nodeB.open({ caller, mode: 'distributed' }, onB);
    const closedId = onB.received[0]?.data.connectionId as string;
    onB.close(disconnectMessageFor(closedId));
    groups.staleChoice = closedId;
    await bus.publish({ type: 'email.received', tenantId: 't1', environmentId: null, timestamp: new Date().toISOString(), data: { subject: 'handed off' } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(onA.received.filter((e) => e.type === 'email.received').map((e) => e.data.subject)).toEqual(['handed off']);
  });

  it('refuses distributed mode for a JWT caller, and accepts broadcast', async () => {
    const { realtime } = setup();
    const jwtCaller: Caller = { ...caller, credential: 'jwt' };
    await expect(realtime.assertCanOpen({ caller: jwtCaller, mode: 'distributed' })).rejects.toMatchObject({ kind: 'unauthenticated', code: 'DISTRIBUTED_REQUIRES_API_KEY' });
    await expect(realtime.assertCanOpen({ caller: jwtCaller, mode: 'broadcast' })).resolves.toBeUndefined();
  });

  it('replays missed events, then live ones, without duplicates', async () => {
    const { realtime, publish, bus } = setup();
    await publish('seen');
    const [seen] = await bus.recent('t1', '0-0');
    await publish('missed');
    const sink = new FakeSink();
    await realtime.open({ caller, mode: 'broadcast', lastEventId: seen?.id }, sink);
    await publish('live');
    expect(sink.received.map((e) => e.type)).toEqual(['connected', 'email.received', 'email.received']);
    expect(sink.received.slice(1).map((e) => e.data.subject)).toEqual(['missed', 'live']);
  });

  it('closes a sink that refuses data with a slow_consumer event, and stops sending to it', async () => {
    const { realtime, publish } = setup();
    const sink = new FakeSink();
    await realtime.open({ caller, mode: 'broadcast' }, sink);
    sink.accept = false;
    await publish('too much');
    expect(JSON.parse(sink.final?.json ?? '{}')).toMatchObject({ type: 'disconnect', data: { reason: 'slow_consumer' } });
    expect(realtime.connectionCount).toBe(0);
  });
});
