import { InvalidInputError, UpstreamError } from '../../core/errors.js';
import type { DnsProvider, DnsProviderRecord, DnsProviderRecordInput, DnsProviderZone } from '../../ports/dns-provider.js';

interface CloudflareMessage {
  code?: number;
  message?: string;
  error_chain?: CloudflareMessage[];
}

interface CloudflareEnvelope<T> {
  success?: boolean;
  errors?: CloudflareMessage[];
  result?: T;
}

interface CloudflareRecord {
  id: string;
  type: string;
  name: string;
  content: string;
  priority?: number;
  ttl: number;
}

/** Cloudflare error codes that mean the token itself is wrong, expired or lacks a permission. */
const TOKEN_ERROR_CODES = new Set([6003, 6102, 6103, 6111, 9103, 9106, 9109, 10000, 10001]);
const PAGE_SIZE = 100;

const describe = (messages: CloudflareMessage[] = []): string =>
  messages
    .flatMap((m) => [m, ...(m.error_chain ?? [])])
    .map((m) => (m.code === undefined ? String(m.message ?? '') : `${m.message ?? 'error'} (code ${m.code})`))
    .filter((text) => text.length > 0)
    .join('; ');

/** Cloudflare writes TXT content quoted ("\"value\""); callers compare the bare value. */
const unquote = (content: string) => (/^".*"$/s.test(content) ? content.slice(1, -1).replace(/"\s*"/g, '') : content);

const toRecord = (record: CloudflareRecord): DnsProviderRecord => ({
  id: record.id,
  type: record.type,
  name: record.name,
  content: record.type === 'TXT' ? unquote(record.content) : record.content,
  ...(record.priority === undefined ? {} : { priority: record.priority }),
  ttl: record.ttl,
});

/** The provider's own words, mapped to who can fix it: the caller (400, field named) or nobody right now (502). */
function providerError(status: number, body: CloudflareEnvelope<unknown> | undefined): Error {
  const detail = describe(body?.errors) || `HTTP ${status}`;
  if (status === 429) return new UpstreamError('DNSPROVIDER_RATE_LIMITED', `The DNS provider is rate limiting requests: ${detail}`);
  if (status >= 500) return new UpstreamError('DNSPROVIDER_UNAVAILABLE', `The DNS provider failed: ${detail}`);
  const codes = (body?.errors ?? []).flatMap((m) => [m, ...(m.error_chain ?? [])]).map((m) => m.code);
  if (status === 401 || status === 403 || codes.some((code) => code !== undefined && TOKEN_ERROR_CODES.has(code))) {
    return new InvalidInputError('DNSPROVIDER_TOKEN_REJECTED', `The DNS provider refused the token: ${detail}`, { field: 'dnsproviderApiToken' });
  }
  if (status === 404) return new InvalidInputError('DNSPROVIDER_ZONE_NOT_FOUND', `The DNS provider does not know this zone: ${detail}`, { field: 'zoneId' });
  return new InvalidInputError('DNSPROVIDER_REJECTED', `The DNS provider rejected the change: ${detail}`);
}

/** The Cloudflare v4 REST API (or anything answering in its shape at `baseUrl`), with a bearer token. */
export class CloudflareDnsProvider implements DnsProvider {
  private readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly timeoutMs: number,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  async findZones(token: string, name: string): Promise<DnsProviderZone[]> {
    const zones = await this.call<DnsProviderZone[]>(token, 'GET', `/zones?${new URLSearchParams({ name })}`);
    return zones.map((zone) => ({ id: zone.id, name: zone.name }));
  }

  async getZone(token: string, zoneId: string): Promise<DnsProviderZone> {
    const zone = await this.call<DnsProviderZone>(token, 'GET', `/zones/${encodeURIComponent(zoneId)}`);
    return { id: zone.id, name: zone.name };
  }

  async listRecords(token: string, zoneId: string, query: { type: string; name: string }): Promise<DnsProviderRecord[]> {
    const search = new URLSearchParams({ type: query.type, name: query.name, per_page: String(PAGE_SIZE) });
    const records = await this.call<CloudflareRecord[]>(token, 'GET', `/zones/${encodeURIComponent(zoneId)}/dns_records?${search}`);
    return records.map(toRecord);
  }

  async createRecord(token: string, zoneId: string, record: DnsProviderRecordInput): Promise<DnsProviderRecord> {
    return toRecord(await this.call<CloudflareRecord>(token, 'POST', `/zones/${encodeURIComponent(zoneId)}/dns_records`, record));
  }

  async updateRecord(token: string, zoneId: string, recordId: string, record: DnsProviderRecordInput): Promise<DnsProviderRecord> {
    const path = `/zones/${encodeURIComponent(zoneId)}/dns_records/${encodeURIComponent(recordId)}`;
    return toRecord(await this.call<CloudflareRecord>(token, 'PUT', path, record));
  }

  private async call<T>(token: string, method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'error',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      throw new UpstreamError('DNSPROVIDER_UNREACHABLE', `The DNS provider could not be reached: ${reason}`);
    }
    const envelope = (await response.json().catch(() => undefined)) as CloudflareEnvelope<T> | undefined;
    if (!response.ok) throw providerError(response.status, envelope);
    if (envelope === undefined || envelope.success === false || envelope.result === undefined) {
      throw envelope?.success === false ? providerError(400, envelope) : new UpstreamError('DNSPROVIDER_BAD_RESPONSE', 'The DNS provider sent an answer we could not read');
    }
    return envelope.result;
  }
}
