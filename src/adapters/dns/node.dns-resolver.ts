import { Resolver } from 'node:dns/promises';
import type { DnsResolve } from '../../ports/dns-resolver.js';

function timeoutError(name: string): Error {
  return Object.assign(new Error(`DNS lookup for ${name} timed out`), { code: 'ETIMEOUT' });
}

/**
 * A resolver over Node's c-ares with one try and a hard deadline per lookup, pointed at
 * MAILROOM_DNS_SERVERS when set. The deadline is enforced here too, because c-ares' own timeout
 * doubles per retry.
 */
export function createNodeDnsResolver(servers: string[], timeoutMs: number): DnsResolve {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  if (servers.length > 0) resolver.setServers(servers);
  return (name, rrtype) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(timeoutError(name)), timeoutMs);
      resolver.resolve(name, rrtype).then(
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
