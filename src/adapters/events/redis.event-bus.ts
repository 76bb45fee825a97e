import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { compareEventIds, eventIdAt, REPLAY_MAX_EVENTS, REPLAY_WINDOW_MS } from '../../core/realtime.js';
import type { DomainEvent, EventBus, EventHandler, PublishedEvent } from '../../ports/event-bus.js';
import { MemoryEventBus } from './memory.event-bus.js';
import { withEventId } from './published-event.js';

/**
 * One round trip, atomic: append to the tenant's replay stream (Redis assigns the id, so ids are
 * ordered across nodes), trim it to the window, and publish `<node>|<id>|<json>` to every node.
 * KEYS: stream, channel. ARGV: max length, window ms, node id, event json.
 */
const PUBLISH_SCRIPT = `
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[4])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('XTRIM', KEYS[1], 'MINID', '~', tostring(now - tonumber(ARGV[2])))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
redis.call('PUBLISH', KEYS[2], ARGV[3] .. '|' .. id .. '|' .. ARGV[4])
return id
`;

type StreamEntry = [id: string, fields: string[]];

/**
 * Multi-node event bus over Redis pub/sub, with each tenant's replay buffer in a capped Redis stream.
 * Events from this node are delivered locally as soon as Redis has given them an id, and skipped when
 * they come back over the channel; events from other nodes are delivered as they arrive.
 */
export class RedisEventBus implements EventBus {
  private readonly local: MemoryEventBus;
  private readonly nodeId = randomUUID();
  private readonly channel: string;
  /** Redis clock minus ours, so position() is comparable with the ids Redis hands out. */
  private clockOffsetMs = 0;

  private constructor(
    private readonly commands: Redis,
    private readonly subscriber: Redis,
    private readonly prefix: string,
    onHandlerError: (error: unknown) => void,
  ) {
    this.local = new MemoryEventBus(onHandlerError);
    this.channel = `${prefix}events`;
  }

  /** Connects two clients (a subscribed client cannot run other commands) and starts listening; fails fast when Redis is unreachable. */
  static async connect(url: string, prefix: string, onHandlerError: (error: unknown) => void): Promise<RedisEventBus> {
    const commands = await connectRedis(url);
    const subscriber = commands.duplicate();
    const bus = new RedisEventBus(commands, subscriber, prefix, onHandlerError);
    subscriber.on('message', (_channel: string, message: string) => bus.receive(message, onHandlerError));
    commands.on('ready', () => bus.measureClock().catch(onHandlerError));
    await subscriber.subscribe(bus.channel);
    await bus.measureClock();
    return bus;
  }

  async publish(event: DomainEvent): Promise<void> {
    const json = JSON.stringify(event);
    const id = (await this.commands.eval(
      PUBLISH_SCRIPT,
      2,
      this.streamKey(event.tenantId),
      this.channel,
      REPLAY_MAX_EVENTS,
      REPLAY_WINDOW_MS,
      this.nodeId,
      json,
    )) as string;
    this.local.deliver(withEventId(event, id));
  }

  subscribe(handler: EventHandler): () => void {
    return this.local.subscribe(handler);
  }

  async recent(tenantId: string, afterId: string): Promise<PublishedEvent[]> {
    const windowStart = eventIdAt(Date.now() + this.clockOffsetMs - REPLAY_WINDOW_MS);
    const start = compareEventIds(afterId, windowStart) > 0 ? `(${afterId}` : windowStart;
    const entries = (await this.commands.xrange(this.streamKey(tenantId), start, '+', 'COUNT', REPLAY_MAX_EVENTS)) as StreamEntry[];
    return entries.map(([id, fields]) => withEventId(JSON.parse(fields[1] as string) as DomainEvent, id));
  }

  position(): string {
    return eventIdAt(Date.now() + this.clockOffsetMs);
  }

  async close(): Promise<void> {
    await this.local.close();
    await Promise.all([this.subscriber.quit(), this.commands.quit()]);
  }

  private receive(message: string, onError: (error: unknown) => void): void {
    const nodeEnd = message.indexOf('|');
    const idEnd = message.indexOf('|', nodeEnd + 1);
    if (message.slice(0, nodeEnd) === this.nodeId) return;
    try {
      const event = JSON.parse(message.slice(idEnd + 1)) as DomainEvent;
      this.local.deliver(withEventId(event, message.slice(nodeEnd + 1, idEnd)));
    } catch (error) {
      onError(error);
    }
  }

  private async measureClock(): Promise<void> {
    const before = Date.now();
    const [seconds, micros] = await this.commands.time();
    const after = Date.now();
    this.clockOffsetMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - Math.round((before + after) / 2);
  }

  private streamKey(tenantId: string): string {
    return `${this.prefix}replay:${tenantId}`;
  }
}

/** A client that reports a wrong URL or a down server at boot instead of retrying silently. */
export async function connectRedis(url: string): Promise<Redis> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
  await client.connect();
  return client;
}
