import { judgeRecord, type DnsRecord, type LookupOutcome } from '../core/custom-domain.js';
import type { DnsResolve } from '../ports/dns-resolver.js';

/** Answers that mean "the name or the record type is not there", as opposed to "we could not ask". */
const ABSENT_CODES = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN', 'NODATA']);

function valuesOf(type: DnsRecord['type'], answer: unknown): string[] {
  if (!Array.isArray(answer)) return [];
  if (type === 'MX') return answer.map((mx: { exchange?: unknown }) => String(mx.exchange ?? ''));
  return answer.map((chunks: unknown) => (Array.isArray(chunks) ? chunks.join('') : String(chunks)));
}

async function lookup(resolve: DnsResolve, record: DnsRecord): Promise<LookupOutcome> {
  try {
    return { kind: 'found', values: valuesOf(record.type, await resolve(record.name, record.type)) };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && ABSENT_CODES.has(code)) return { kind: 'missing' };
    return { kind: 'error', reason: typeof code === 'string' ? code : error instanceof Error ? error.message : String(error) };
  }
}

/** Looks every record up through the configured resolver (in parallel) and judges each answer. */
export async function checkRecords(resolve: DnsResolve, records: DnsRecord[], now = new Date()): Promise<DnsRecord[]> {
  const checkedAt = now.toISOString();
  return Promise.all(records.map(async (record) => judgeRecord(record, await lookup(resolve, record), checkedAt)));
}
