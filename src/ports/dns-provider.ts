/**
 * A DNS hosting provider's record API (Cloudflare's v4 shape), used to publish a custom domain's
 * records for the customer. The API token is passed on every call and never kept by the adapter.
 * Adapters throw typed AppErrors: InvalidInputError for what the caller can fix (a rejected token,
 * missing permission, an unknown zone; `field` names the parameter) and UpstreamError for the
 * provider's own trouble (rate limit, 5xx, unreachable), always carrying the provider's message.
 */
export interface DnsProviderZone {
  id: string;
  name: string;
}

export interface DnsProviderRecord {
  id: string;
  type: string;
  name: string;
  /** TXT content without the surrounding quotes some providers add. */
  content: string;
  priority?: number;
  ttl: number;
}

export type DnsProviderRecordInput = Omit<DnsProviderRecord, 'id'>;

export interface DnsProvider {
  /** Zones with exactly this name that the token can see (zero or one in practice). */
  findZones(token: string, name: string): Promise<DnsProviderZone[]>;
  getZone(token: string, zoneId: string): Promise<DnsProviderZone>;
  listRecords(token: string, zoneId: string, query: { type: string; name: string }): Promise<DnsProviderRecord[]>;
  createRecord(token: string, zoneId: string, record: DnsProviderRecordInput): Promise<DnsProviderRecord>;
  updateRecord(token: string, zoneId: string, recordId: string, record: DnsProviderRecordInput): Promise<DnsProviderRecord>;
}
