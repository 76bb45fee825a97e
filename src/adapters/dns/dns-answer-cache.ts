import type { DnsResolve } from '../../ports/dns-resolver.js';

/** A lookup's records, and their TTL when the resolver reports one (Node does for A and AAAA only). */
export interface TimedAnswer {
  records: unknown;
  ttlSeconds?: number;
}

export type TimedLookup = (name: string, rrtype: string) => Promise<TimedAnswer>;

export interface DnsCacheLimits {
  /** Longest a positive answer is kept, whatever its TTL; the whole time when the TTL is unknown. */
  maxTtlMs: number;
  /** How long "no such name" (ENOTFOUND) and "no records of this type" (ENODATA) are kept. */
  negativeTtlMs: number;
  /** Answers kept at most; past it the oldest goes. */
  maxEntries: number;
}

/**
 * For message authentication (docs/decisions.md D32): a burst of mail from one sender asks the same
 * SPF, DMARC and DKIM key names for every message. Node gives no TTL for TXT or MX, so a positive
 * answer is kept at most 60 s, shorter than the TTL of almost any published record; a negative one
 * 15 s (RFC 2308 allows negative caching; its TTL, from the SOA, is not available either), so a record
 * just published is seen within seconds.
 */
export const MESSAGE_AUTH_DNS_CACHE: DnsCacheLimits = { maxTtlMs: 60_000, negativeTtlMs: 15_000, maxEntries: 2_000 };

const NEGATIVE_CODES = new Set(['ENOTFOUND', 'ENODATA']);

interface Entry {
  expiresAt: number;
  records?: unknown;
  /** A negative answer, kept as the resolver's error. */
  error?: Error;
}

/**
 * Every caller gets its own copy, as from Node's resolver: mailauth sorts MX lists in place and
 * annotates the errors it is thrown.
 */
function copyOf(records: unknown): unknown {
  if (Array.isArray(records)) return records.map(copyOf);
  if (typeof records === 'object' && records !== null) return { ...records };
  return records;
}

function copyError(error: Error): Error {
  const { code, syscall, hostname } = error as NodeJS.ErrnoException & { hostname?: string };
  return Object.assign(new Error(error.message), { code, syscall, hostname });
}

/**
 * A result worked out from DNS answers alone (and its key): SPF's verdict for one client IP, HELO and
 * MAIL FROM, DMARC's for one From domain and SPF result (docs/decisions.md D38).
 */
export type DerivedResultCache<T> = (key: string, compute: (resolve: DnsResolve) => Promise<T>) => Promise<T>;

/** A resolver with an answer cache, which can also keep results derived from its answers. */
export interface CachingDnsResolve {
  (name: string, rrtype: string): Promise<unknown>;
  /**
   * A cache of results that depend on nothing but their key and the answers `compute` reads through
   * the resolver it is handed. A result is kept until the first of those answers expires, so it is
   * never staler than the answers; not at all when a lookup failed for a reason that is not kept (a
   * timeout) or `compute` threw. Every caller of one key gets the same object: callers must not change it.
   */
  resultCache<T>(): DerivedResultCache<T>;
}

/** A result cache over `resolve` when it is a caching resolver; otherwise every call computes afresh. */
export function resultCacheOf<T>(resolve: DnsResolve | CachingDnsResolve): DerivedResultCache<T> {
  if ('resultCache' in resolve) return resolve.resultCache<T>();
  return (_key, compute) => compute(resolve);
}

/** Adds `entry` under `key` unless it has expired, dropping the oldest entry past `maxEntries`. */
function keepUntilExpiry<E extends { expiresAt: number }>(entries: Map<string, E>, key: string, entry: E, now: number, maxEntries: number): void {
  entries.delete(key);
  if (entry.expiresAt <= now) return;
  entries.set(key, entry);
  if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
}

/**
 * `lookup` behind an answer cache: positive answers for min(TTL, maxTtlMs), negative ones for
 * negativeTtlMs, other failures (timeouts, refusals, server failures) not at all. Concurrent asks for
 * the same name and type share one query.
 */
export function cachingDnsResolver(lookup: TimedLookup, limits: DnsCacheLimits, now: () => number = () => performance.now()): CachingDnsResolve {
  const entries = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<Entry>>();

  const query = (key: string, name: string, rrtype: string): Promise<Entry> => {
    const pending = lookup(name, rrtype)
      .then(
        ({ records, ttlSeconds }): Entry => ({ records, expiresAt: now() + Math.min(limits.maxTtlMs, (ttlSeconds ?? Infinity) * 1000) }),
        (error: NodeJS.ErrnoException): Entry => {
          if (!NEGATIVE_CODES.has(error.code ?? '')) throw error;
          return { error, expiresAt: now() + limits.negativeTtlMs };
        },
      )
      .then((entry) => {
        keepUntilExpiry(entries, key, entry, now(), limits.maxEntries);
        return entry;
      })
      .finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
    return pending;
  };

  /** The current entry for a name and type; a failure that is not kept is thrown as a fresh copy. */
  const entryFor = async (name: string, rrtype: string): Promise<Entry> => {
    const key = `${rrtype} ${name.toLowerCase()}`;
    const cached = entries.get(key);
    if (cached !== undefined && cached.expiresAt > now()) return cached;
    try {
      return await (inFlight.get(key) ?? query(key, name, rrtype));
    } catch (error) {
      throw copyError(error as Error);
    }
  };

  const answerOf = (entry: Entry): unknown => {
    if (entry.error !== undefined) throw copyError(entry.error);
    return copyOf(entry.records);
  };

  const resultCache = <T>(): DerivedResultCache<T> => {
    const results = new Map<string, { value: T; expiresAt: number }>();
    return async (key, compute) => {
      const cached = results.get(key);
      if (cached !== undefined && cached.expiresAt > now()) return cached.value;
      let expiresAt = now() + limits.maxTtlMs;
      const value = await compute(async (name, rrtype) => {
        const entry = await entryFor(name, rrtype).catch((error: unknown) => {
          expiresAt = -Infinity;
          throw error;
        });
        expiresAt = Math.min(expiresAt, entry.expiresAt);
        return answerOf(entry);
      });
      keepUntilExpiry(results, key, { value, expiresAt }, now(), limits.maxEntries);
      return value;
    };
  };

  return Object.assign(async (name: string, rrtype: string) => answerOf(await entryFor(name, rrtype)), { resultCache });
}
