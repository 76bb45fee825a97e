import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { domainToASCII, domainToUnicode } from 'node:url';
import { getDomain, parse as parseHost } from 'tldts';

/**
 * Custom domains as a pure domain: which names a tenant may add, which DNS records prove ownership
 * and route mail to Mailroom, and how a DNS answer is judged against them. docs/domains.md is the
 * user-facing description.
 */

export const DNS_RECORD_TYPES = ['MX', 'TXT'] as const;
export type DnsRecordType = (typeof DNS_RECORD_TYPES)[number];

/** pending: never checked; verified: the last lookup found it; failed: the last lookup did not (see `error`). */
export const DNS_RECORD_STATUSES = ['pending', 'verified', 'failed'] as const;
export type DnsRecordStatus = (typeof DNS_RECORD_STATUSES)[number];

/** A record the customer publishes, with the result of the last check of it. */
export interface DnsRecord {
  type: DnsRecordType;
  name: string;
  value: string;
  priority?: number;
  ttl: number;
  status: DnsRecordStatus;
  checkedAt: string | null;
  error: string | null;
}

export const MX_PRIORITY = 10;
export const RECORD_TTL_SECONDS = 3600;
export const OWNERSHIP_LABEL = '_mailroom';
export const OWNERSHIP_PREFIX = 'mailroom-verification=';

/** RFC 6761/6762 special-use names that never resolve on the public internet. */
const SPECIAL_USE_TLDS = new Set(['localhost', 'invalid', 'local', 'arpa', 'onion']);
const LDH_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const MAX_NAME_LENGTH = 253;

export interface DomainName {
  /** Lower-case ASCII (punycode) form: what DNS and SMTP use and what is stored as `domain`. */
  ascii: string;
  /** The same name for display, IDN labels decoded. */
  unicode: string;
}

export type DomainNameProblem = { ok: false; message: string };

const within = (name: string, parent: string) => name === parent || name.endsWith(`.${parent}`);

/** Lower-case, no surrounding blanks or trailing root dot, IDN labels in punycode; '' when unencodable. */
export function asciiDomain(input: string): string {
  const trimmed = input.trim().replace(/\.$/, '');
  if (trimmed.length === 0 || isIP(trimmed.replace(/^\[|\]$/g, '')) !== 0) return '';
  return domainToASCII(trimmed).toLowerCase();
}

/**
 * Validates a domain a tenant wants to receive mail for: a host name below a public suffix
 * (IDN accepted), not an IP literal, not a single label, not a public suffix itself and not
 * Mailroom's own shared domains (`reserved`: the shared mail domain and the MX host).
 */
export function parseCustomDomain(input: string, reserved: readonly string[]): DomainName | DomainNameProblem {
  const raw = input.trim().replace(/\.$/, '');
  if (isIP(raw.replace(/^\[|\]$/g, '')) !== 0) return { ok: false, message: 'domain must be a host name, not an IP address' };
  const ascii = asciiDomain(raw);
  if (ascii.length === 0) return { ok: false, message: `"${input}" is not a valid domain name` };
  if (ascii.length > MAX_NAME_LENGTH) return { ok: false, message: `domain must be at most ${MAX_NAME_LENGTH} characters` };
  const labels = ascii.split('.');
  if (labels.length < 2) return { ok: false, message: 'domain needs at least two labels (e.g. example.com)' };
  if (!labels.every((label) => LDH_LABEL.test(label))) {
    return { ok: false, message: 'domain labels may only contain letters, digits and inner hyphens, up to 63 characters each' };
  }
  const tld = labels[labels.length - 1] as string;
  if (/^\d+$/.test(tld) || SPECIAL_USE_TLDS.has(tld)) return { ok: false, message: `domains under .${tld} cannot receive internet mail` };
  const parsed = parseHost(ascii, { allowPrivateDomains: true });
  if (parsed.domain === null) return { ok: false, message: `${ascii} is a public suffix; add a domain registered under it` };
  const clash = reserved.find((shared) => within(ascii, shared));
  if (clash !== undefined) return { ok: false, message: `${clash} and its subdomains are Mailroom's own domains` };
  return { ascii, unicode: domainToUnicode(ascii) };
}

export const isDomainProblem = (value: DomainName | DomainNameProblem): value is DomainNameProblem => 'ok' in value;

/** The per-domain secret the ownership TXT record carries (128 random bits, hex). */
export const generateVerificationCode = (): string => randomBytes(16).toString('hex');

/** The records to publish: MX at the domain pointing at Mailroom, TXT ownership proof under `_mailroom`. */
export function expectedRecords(domain: string, verificationCode: string, mxHost: string): DnsRecord[] {
  const unchecked = { ttl: RECORD_TTL_SECONDS, status: 'pending' as const, checkedAt: null, error: null };
  return [
    { type: 'MX', name: domain, value: mxHost, priority: MX_PRIORITY, ...unchecked },
    { type: 'TXT', name: `${OWNERSHIP_LABEL}.${domain}`, value: `${OWNERSHIP_PREFIX}${verificationCode}`, ...unchecked },
  ];
}

/** What one DNS lookup returned: the values at the name (MX exchanges, TXT strings) or why there are none. */
export type LookupOutcome = { kind: 'found'; values: string[] } | { kind: 'missing' } | { kind: 'error'; reason: string };

/** Host names compared as DNS does: case-insensitive, trailing root dot ignored. */
export const sameHost = (a: string, b: string): boolean => a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '');

/** Judges one record against its lookup; other values at the same name (a second MX, an SPF TXT) do not matter. */
export function judgeRecord(record: DnsRecord, outcome: LookupOutcome, checkedAt: string): DnsRecord {
  const checked = { ...record, checkedAt };
  const label = `${record.type} ${record.name}`;
  if (outcome.kind === 'error') return { ...checked, status: 'failed', error: `lookup of ${label} failed: ${outcome.reason}` };
  if (outcome.kind === 'missing' || outcome.values.length === 0) {
    return { ...checked, status: 'failed', error: `no ${label} record found; publish "${record.value}"` };
  }
  const matches = record.type === 'MX' ? outcome.values.some((v) => sameHost(v, record.value)) : outcome.values.some((v) => v.trim() === record.value);
  if (matches) return { ...checked, status: 'verified', error: null };
  const found = outcome.values.map((v) => `"${v}"`).join(', ');
  return { ...checked, status: 'failed', error: `${label} has ${found}, expected "${record.value}"` };
}

/**
 * Zone names a DNS provider may host the domain under, longest first: the domain itself, then each
 * parent down to the registrable domain (a delegated `mail.example.com` zone wins over `example.com`).
 */
export function zoneCandidates(domain: string): string[] {
  const registrable = getDomain(domain, { allowPrivateDomains: true }) ?? domain;
  const labels = domain.split('.');
  const candidates: string[] = [];
  for (let i = 0; i < labels.length; i++) {
    const candidate = labels.slice(i).join('.');
    candidates.push(candidate);
    if (candidate === registrable) break;
  }
  return candidates;
}

export const zoneContains = (zoneName: string, domain: string): boolean => within(domain, zoneName.toLowerCase().replace(/\.$/, ''));
