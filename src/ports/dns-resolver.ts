/**
 * The mailauth resolver contract, the same as `dns.promises.resolve`: TXT answers are string[][],
 * MX answers {exchange, priority}[], and failures throw an error whose `code` is ENOTFOUND, ENODATA
 * or ETIMEOUT.
 */
export type DnsResolve = (name: string, rrtype: string) => Promise<unknown>;
