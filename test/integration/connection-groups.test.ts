import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryConnectionGroups } from '../../src/adapters/events/memory.connection-groups.js';
import { RedisConnectionGroups } from '../../src/adapters/events/redis.connection-groups.js';
import type { ConnectionGroups } from '../../src/ports/connection-groups.js';
import { REDIS_URL } from '../helpers/databases.js';

if (REDIS_URL === undefined) console.warn('SKIPPED: Redis ConnectionGroups tests (set MAILROOM_TEST_REDIS_URL to run them)');

const prefix = () => `mailroom-test-${randomBytes(6).toString('hex')}:`;
const adapters: Array<[string, () => Promise<ConnectionGroups>]> = [['memory', async () => new MemoryConnectionGroups()]];
if (REDIS_URL !== undefined) adapters.push(['redis', () => RedisConnectionGroups.connect(REDIS_URL as string, prefix(), 60_000)]);

describe.each(adapters)('ConnectionGroups contract (%s)', (_name, create) => {
  const opened: ConnectionGroups[] = [];
  const make = async () => {
    const groups = await create();
    opened.push(groups);
    return groups;
  };
  afterAll(async () => {
    for (const groups of opened) await groups.close();
  });

  it('chooses one member per event, the same answer every time, and spreads events over members', async () => {
    const groups = await make();
    for (const member of ['m1', 'm2', 'm3']) await groups.join('key-1', member);
    const picks = new Map<string, number>();
    for (let i = 0; i < 60; i += 1) {
      const chosen = await groups.choose('key-1', `1-${i}`);
      expect(await groups.choose('key-1', `1-${i}`)).toBe(chosen);
      picks.set(chosen as string, (picks.get(chosen as string) ?? 0) + 1);
    }
    expect([...picks.keys()].sort()).toEqual(['m1', 'm2', 'm3']);
    expect(await groups.choose('empty', '1-0')).toBeUndefined();
  });

  it('keeps its answer until the member is reported gone, then re-chooses among the others', async () => {
    const groups = await make();
    await groups.join('key-2', 'a');
    await groups.join('key-2', 'b');
    const first = (await groups.choose('key-2', '5-0')) as string;
    // Other nodes may already have acted on the answer, so it stands until the member's node reports it gone.
    await groups.leave('key-2', first);
    expect(await groups.choose('key-2', '5-0')).toBe(first);
    await groups.join('key-2', first);
    const second = await groups.choose('key-2', '5-0', first);
    expect(second).toBe(first === 'a' ? 'b' : 'a');
    await groups.leave('key-2', second as string);
    expect(await groups.choose('key-2', '6-0')).toBeUndefined();
  });

  it('lets a resuming member claim only events whose chosen member is no longer live', async () => {
    const groups = await make();
    await groups.join('key-3', 'live');
    await groups.join('key-3', 'dead');
    await groups.leave('key-3', 'dead');
    expect(await groups.choose('key-3', '7-0')).toBe('live');
    expect(await groups.claimOrphan('key-3', '7-0', 'newcomer')).toBe(false);
    expect(await groups.claimOrphan('key-3', '8-0', 'newcomer')).toBe(true);
    await groups.leave('key-3', 'live');
    expect(await groups.claimOrphan('key-3', '7-0', 'newcomer')).toBe(true);
  });
});

describe.runIf(REDIS_URL !== undefined)('RedisConnectionGroups presence', () => {
  it('drops a member that stops refreshing once its presence TTL lapses (a dead node)', async () => {
    const groups = await RedisConnectionGroups.connect(REDIS_URL as string, prefix(), 100);
    try {
      await groups.join('key', 'crashed');
      await groups.join('key', 'alive');
      // Only "alive" keeps refreshing, as its node's presence task would; no event marks the expiry.
      await new Promise((resolve) => setTimeout(resolve, 200));
      // Each refresh goes out right before its choice on the same connection, so Redis runs them back
      // to back: a loaded machine slowing the loop cannot let "alive" lapse too.
      for (let i = 0; i < 20; i += 1) {
        const [, chosen] = await Promise.all([groups.refresh([{ group: 'key', memberId: 'alive' }]), groups.choose('key', `9-${i}`)]);
        expect(chosen).toBe('alive');
      }
    } finally {
      await groups.close();
    }
  });
});
