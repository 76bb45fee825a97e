import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isBlockedAddress } from '../../core/egress.js';

export const EGRESS_BLOCKED = 'EGRESS_BLOCKED';

export class EgressBlockedError extends Error {
  readonly code = EGRESS_BLOCKED;
}

export const blockedMessage = (host: string, address: string): string =>
  host === address ? `host ${host} is a loopback, private, link-local or reserved address` : `host ${host} resolves to ${address}, a loopback, private, link-local or reserved address`;

/** Any `dns.lookup`-shaped resolver asked for every address (`all: true`). */
export type LookupAll = (hostname: string, options: { all: true; family?: number | string }, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/**
 * A socket `lookup` that resolves every address of the host and refuses the connection if any of
 * them is blocked: checked on each connection, so a name that re-resolves to loopback later (DNS
 * rebinding) is refused then too.
 */
export function guardedLookup(base: LookupAll, isBlocked: (address: string) => boolean = isBlockedAddress): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const bad = addresses.find((a) => isBlocked(a.address));
      if (bad !== undefined) return callback(new EgressBlockedError(blockedMessage(hostname, bad.address)), '', 0);
      if (addresses.length === 0) return callback(Object.assign(new Error(`host ${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      if (options.all === true) return callback(null, addresses);
      const first = addresses[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}
