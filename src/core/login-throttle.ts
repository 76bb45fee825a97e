/**
 * Counts failures per key (an address and client IP, a client IP) in a sliding window, in this
 * process. A key's count falls as its failures leave the window, so a throttle built on it refuses
 * for at most one window after the last failure.
 */
export class FailureWindow {
  private readonly failures = new Map<string, number[]>();

  constructor(
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

  count(key: string): number {
    return this.recent(key).length;
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
