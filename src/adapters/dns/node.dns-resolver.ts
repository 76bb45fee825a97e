import { Resolver } from 'node:dns/promises';
import type { DnsResolve } from '../../ports/dns-resolver.js';
import { cachingDnsResolver, MESSAGE_AUTH_DNS_CACHE, type CachingDnsResolve, type TimedAnswer } from './dns-answer-cache.js';

function timeoutError(name: string): Error {
  return Object.assign(new Error(`DNS lookup for ${name} timed out`), { code: 'ETIMEOUT' });
}

/** c-ares with one try, pointed at MAILROOM_DNS_SERVERS when set. */
function nodeResolver(servers: string[], timeoutMs: number): Resolver {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  if (servers.length > 0) resolver.setServers(servers);
  return resolver;
}

/** The deadline is enforced here too, because c-ares' own timeout doubles per retry. */
function withinDeadline<T>(name: string, timeoutMs: number, lookup: Promise<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(timeoutError(name)), timeoutMs);
    lookup.then(
      (answer) => {
        clearTimeout(timer);
        resolve(answer);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** A and AAAA with the TTLs Node reports for them; other types without (Node has none to give). */
async function timedAnswer(resolver: Resolver, name: string, rrtype: string): Promise<TimedAnswer> {
  if (rrtype !== 'A' && rrtype !== 'AAAA') return { records: await resolver.resolve(name, rrtype) };
  const records = rrtype === 'A' ? await resolver.resolve4(name, { ttl: true }) : await resolver.resolve6(name, { ttl: true });
  return { records: records.map((record) => record.address), ttlSeconds: Math.min(...records.map((record) => record.ttl)) };
}

/**
 * A resolver over Node's c-ares with one try and a hard deadline per lookup, pointed at
 * MAILROOM_DNS_SERVERS when set. Every call asks the server: domain verification and the doctor
 * must see a record the moment it is published.
 */
export function createNodeDnsResolver(servers: string[], timeoutMs: number): DnsResolve {
  const resolver = nodeResolver(servers, timeoutMs);
  return (name, rrtype) => withinDeadline(name, timeoutMs, resolver.resolve(name, rrtype));
}

/** The same lookups behind an answer cache, for SPF, DKIM and DMARC checks (dns-answer-cache.ts). */
export function createCachingNodeDnsResolver(servers: string[], timeoutMs: number): CachingDnsResolve {
  const resolver = nodeResolver(servers, timeoutMs);
  return cachingDnsResolver((name, rrtype) => withinDeadline(name, timeoutMs, timedAnswer(resolver, name, rrtype)), MESSAGE_AUTH_DNS_CACHE);
}
