import type { Redis } from 'ioredis';
import { connectRedis } from './redis.event-bus.js';
import { REPLAY_WINDOW_MS } from '../../core/realtime.js';
import type { ConnectionGroups, HandOff } from '../../ports/connection-groups.js';

/** Redis's clock for every expiry, so nodes with skewed clocks agree on who is alive. */
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS: group sets. ARGV: ttl ms, then one member per key. Score = expiry time. */
const REFRESH_SCRIPT = `${NOW}
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + tonumber(ARGV[1]), ARGV[i + 1])
  redis.call('PEXPIRE', key, tonumber(ARGV[1]) * 2)
end
return #KEYS`;

/**
 * The first caller for an event picks a live member at random (its random number) and records the
 * choice; every later caller, on any node, reads the same answer, even after that member left (the
 * other nodes may already have acted on it). Only the member's own node reports it gone, which
 * drops the choice and picks again. KEYS: group set, choice key.
 * ARGV: random in [0,1), choice ttl ms, gone member ('' for none).
 */
const CHOOSE_SCRIPT = `${NOW}
if ARGV[3] ~= '' then
  redis.call('ZREM', KEYS[1], ARGV[3])
  if redis.call('GET', KEYS[2]) == ARGV[3] then redis.call('DEL', KEYS[2]) end
end
local chosen = redis.call('GET', KEYS[2])
if chosen then return chosen end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
if #members == 0 then return false end
chosen = members[math.min(#members, math.floor(tonumber(ARGV[1]) * #members) + 1)]
redis.call('SET', KEYS[2], chosen, 'PX', tonumber(ARGV[2]))
return chosen`;

/** KEYS: group set, choice key. ARGV: member, choice ttl ms. 1 when the event is now the member's. */
const CLAIM_ORPHAN_SCRIPT = `${NOW}
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[1] then
  local expires = redis.call('ZSCORE', KEYS[1], holder)
  if expires and tonumber(expires) > now then return 0 end
end
redis.call('SET', KEYS[2], ARGV[1], 'PX', tonumber(ARGV[2]))
return 1`;

/** Choices outlive the replay window, so a resuming member can still tell delivered events from orphans. */
const CHOICE_TTL_MS = REPLAY_WINDOW_MS + 60_000;

/**
 * Group membership shared by every node: one sorted set per group, scored by expiry, refreshed at
 * each heartbeat; a node that dies stops refreshing and its members expire after `presenceTtlMs`.
 */
export class RedisConnectionGroups implements ConnectionGroups {
  private readonly handOffListeners: Array<(handOff: HandOff) => void> = [];
  private readonly handOffChannel: string;

  private constructor(
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly prefix: string,
    private readonly presenceTtlMs: number,
  ) {
    this.handOffChannel = `${prefix}handoff`;
  }

  /** Two clients: commands, and a subscriber for hand-offs (a subscribed client runs nothing else). */
  static async connect(url: string, prefix: string, presenceTtlMs: number): Promise<RedisConnectionGroups> {
    const redis = await connectRedis(url);
    const groups = new RedisConnectionGroups(redis, redis.duplicate(), prefix, presenceTtlMs);
    groups.subscriber.on('message', (_channel: string, message: string) => {
      const handOff = JSON.parse(message) as HandOff;
      for (const listener of groups.handOffListeners) listener(handOff);
    });
    await groups.subscriber.subscribe(groups.handOffChannel);
    return groups;
  }

  async join(group: string, memberId: string): Promise<void> {
    await this.refresh([{ group, memberId }]);
  }

  async leave(group: string, memberId: string): Promise<void> {
    await this.redis.zrem(this.groupKey(group), memberId);
  }

  async refresh(members: ReadonlyArray<{ group: string; memberId: string }>): Promise<void> {
    if (members.length === 0) return;
    const keys = members.map((m) => this.groupKey(m.group));
    await this.redis.eval(REFRESH_SCRIPT, keys.length, ...keys, this.presenceTtlMs, ...members.map((m) => m.memberId));
  }

  async choose(group: string, eventId: string, goneMemberId?: string): Promise<string | undefined> {
    const chosen = (await this.redis.eval(
      CHOOSE_SCRIPT,
      2,
      this.groupKey(group),
      this.choiceKey(group, eventId),
      Math.random(),
      CHOICE_TTL_MS,
      goneMemberId ?? '',
    )) as string | null;
    return chosen ?? undefined;
  }

  async claimOrphan(group: string, eventId: string, memberId: string): Promise<boolean> {
    const claimed = await this.redis.eval(CLAIM_ORPHAN_SCRIPT, 2, this.groupKey(group), this.choiceKey(group, eventId), memberId, CHOICE_TTL_MS);
    return claimed === 1;
  }

  async handOff(handOff: HandOff): Promise<void> {
    await this.redis.publish(this.handOffChannel, JSON.stringify(handOff));
  }

  onHandOff(listener: (handOff: HandOff) => void): void {
    this.handOffListeners.push(listener);
  }

  async close(): Promise<void> {
    await Promise.all([this.subscriber.quit(), this.redis.quit()]);
  }

  private groupKey(group: string): string {
    return `${this.prefix}group:${group}`;
  }

  private choiceKey(group: string, eventId: string): string {
    return `${this.prefix}choice:${group}:${eventId}`;
  }
}
