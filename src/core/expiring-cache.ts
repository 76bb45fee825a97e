/**
 * Values read through a loader and kept for `ttlMs`, for reads on a hot path (every RCPT TO, every
 * API request) whose staleness the caller documents. Concurrent callers share one read. A read that
 * fails is not kept, so the next caller tries again. At `maxEntries` the cache starts over: forgetting
 * costs one extra read per key, never a wrong answer.
 */
export class ExpiringCache<K, V> {
  private readonly entries = new Map<K, { value: Promise<V>; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  get(key: K, load: () => Promise<V>, now = Date.now()): Promise<V> {
    const cached = this.entries.get(key);
    if (cached !== undefined && cached.until > now) return cached.value;
    return this.set(key, load(), now);
  }

  /** Keeps a value the caller already has (a total a write returned), replacing any older one. */
  set(key: K, value: Promise<V>, now = Date.now()): Promise<V> {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    const entry = { value, until: now + this.ttlMs };
    this.entries.set(key, entry);
    value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return value;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
