import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { FailureCounter } from '../../ports/failure-counter.js';

/** Drops failures older than the window, adds this one and lets the key lapse with its newest failure. */
const FAIL_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1] - ARGV[2])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/** One sorted set per key (scores: failure times), so every node sees the same count. */
export class RedisFailureCounter implements FailureCounter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  private key(key: string): string {
    return `${this.prefix}failures:${key}`;
  }

  async count(key: string): Promise<number> {
    return this.redis.zcount(this.key(key), `(${this.now() - this.windowMs}`, '+inf');
  }

  async fail(key: string): Promise<void> {
    await this.redis.eval(FAIL_SCRIPT, 1, this.key(key), this.now(), this.windowMs, `${this.now()}-${randomBytes(6).toString('hex')}`);
  }
}
