/**
 * Counts failed logins per key (an address, a client IP) in a sliding window. Once a key reaches
 * the limit, further attempts are refused, right or wrong, until its oldest failure leaves the window;
 * that caps guessing without letting one attacker lock a user out for longer than the window.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  private recent(key: string): number[] {
    const since = this.now() - this.windowMs;
    const kept = (this.failures.get(key) ?? []).filter((t) => t > since);
    if (kept.length === 0) this.failures.delete(key);
    else this.failures.set(key, kept);
    return kept;
  }

  blocked(key: string): boolean {
    return this.recent(key).length >= this.limit;
  }

  fail(key: string): void {
    const kept = this.recent(key);
    kept.push(this.now());
    this.failures.set(key, kept);
    if (this.failures.size > 100_000) this.prune();
  }

  private prune(): void {
    for (const key of [...this.failures.keys()]) this.recent(key);
  }
}
