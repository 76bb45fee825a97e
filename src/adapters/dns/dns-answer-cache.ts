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
 * `lookup` behind an answer cache: positive answers for min(TTL, maxTtlMs), negative ones for
 * negativeTtlMs, other failures (timeouts, refusals, server failures) not at all. Concurrent asks for
 * the same name and type share one query.
 */
export function cachingDnsResolver(lookup: TimedLookup, limits: DnsCacheLimits, now: () => number = () => performance.now()): DnsResolve {
  const entries = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<Entry>>();

  const keep = (key: string, entry: Entry) => {
    entries.delete(key);
    if (entry.expiresAt <= now()) return;
    entries.set(key, entry);
    if (entries.size > limits.maxEntries) entries.delete(entries.keys().next().value as string);
  };

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
        keep(key, entry);
        return entry;
      })
      .finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
    return pending;
  };

  return async (name, rrtype) => {
    const key = `${rrtype} ${name.toLowerCase()}`;
    const cached = entries.get(key);
    let entry: Entry;
    try {
      entry = cached !== undefined && cached.expiresAt > now() ? cached : await (inFlight.get(key) ?? query(key, name, rrtype));
    } catch (error) {
      throw copyError(error as Error);
    }
    if (entry.error !== undefined) throw copyError(entry.error);
    return copyOf(entry.records);
  };
}
