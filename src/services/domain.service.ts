import { createHmac, randomUUID } from 'node:crypto';
import type { Caller } from '../core/api-key.js';
import {
  asciiDomain,
  expectedRecords,
  generateVerificationCode,
  isDomainProblem,
  OWNERSHIP_PREFIX,
  parseCustomDomain,
  sameHost,
  zoneCandidates,
  zoneContains,
  type DnsRecord,
} from '../core/custom-domain.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../core/errors.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { DomainRecord } from '../adapters/db/repositories/domain.repository.js';
import type { Logger } from '../logger.js';
import type { RecipientChanges } from './recipient.service.js';
import type { DnsProvider, DnsProviderZone } from '../ports/dns-provider.js';
import type { DnsResolve } from '../ports/dns-resolver.js';
import { checkRecords } from './domain-verification.js';
import type { InboxService } from './inbox.service.js';

/** Hex characters of a verification code (128 bits, as the random codes of older claims). */
const VERIFICATION_CODE_LENGTH = 32;

/** The Domain object of spec 2.7 (plus the Unicode form of IDN names). */
export interface DomainView {
  id: string;
  domain: string;
  unicodeDomain: string;
  verified: boolean;
  enabled: boolean;
  createdAt: string;
}

/** GET /domains/:id: the domain, the records to publish and the last check of each. */
export interface DomainDetailView extends DomainView {
  verificationCode: string;
  records: DnsRecord[];
  lastCheckedAt: string | null;
}

export interface RecordChange {
  type: DnsRecord['type'];
  name: string;
  action: 'created' | 'updated' | 'unchanged';
}

export interface ProviderSetup {
  domain: DomainDetailView;
  zone: DnsProviderZone;
  changes: RecordChange[];
}

export interface DomainSettings {
  /** The shared inbox domain; it and its subdomains cannot be added. */
  mailDomain: string;
  /** Where customers' MX records point; also refused as a custom domain. */
  mxHost: string;
  /** Another account's unverified claim of a name lapses this many days after it was made. */
  claimDays: number;
  /** Keys the verification code of a (tenant, name) pair, so it is known before the claim exists. */
  claimSecret: Buffer;
}

const RECHECK_BATCH = 20;

const domainNotFound = (what: string) => new NotFoundError('DOMAIN_NOT_FOUND', `Domain ${what} not found`);

const toView = (domain: DomainRecord): DomainView => ({
  id: domain.id,
  domain: domain.domain,
  unicodeDomain: domain.unicodeDomain,
  verified: domain.verified,
  enabled: domain.enabled,
  createdAt: domain.createdAt,
});

export const failedRecords = (detail: DomainDetailView): DnsRecord[] => detail.records.filter((record) => record.status !== 'verified');

/**
 * Custom domains: add, verify ownership and routing through DNS (MX + TXT), publish the records
 * through the customer's DNS provider, enable, disable and delete. Reception itself is decided by
 * RecipientService, which reads `verified` and `enabled` on every RCPT TO, so changes apply at once.
 */
export class DomainService {
  constructor(
    private readonly repos: Repositories,
    private readonly resolve: DnsResolve,
    private readonly provider: DnsProvider,
    private readonly inboxes: Pick<InboxService, 'delete'>,
    private readonly settings: DomainSettings,
    private readonly logger: Logger,
    /** RCPT TO's cache of served addresses: a disabled or deleted domain stops receiving at once. */
    private readonly recipients: RecipientChanges,
  ) {}

  async add(caller: Caller, input: { domain: string }): Promise<DomainDetailView> {
    const name = parseCustomDomain(input.domain, [this.settings.mailDomain, this.settings.mxHost]);
    if (isDomainProblem(name)) throw new InvalidInputError('INVALID_DOMAIN', name.message, { field: 'domain' });
    // Taking over another account's unverified claim proves ownership with the code the 409 named.
    const takenOver = await this.releaseOrRefuse(caller, name.ascii);
    const verificationCode = takenOver ? this.claimCode(caller.tenantId, name.ascii) : generateVerificationCode();
    const record: DomainRecord = {
      id: randomUUID(),
      tenantId: caller.tenantId,
      domain: name.ascii,
      unicodeDomain: name.unicode,
      verified: false,
      enabled: true,
      verificationCode,
      records: expectedRecords(name.ascii, verificationCode, this.settings.mxHost),
      lastCheckedAt: null,
      createdAt: new Date().toISOString(),
    };
    try {
      await this.repos.domains.insert(record);
    } catch (error) {
      // Two requests raced for the same name: the unique index let one through.
      await this.assertUnclaimed(caller, name.ascii);
      throw error;
    }
    return this.detail(record);
  }

  async list(caller: Caller): Promise<DomainView[]> {
    return (await this.repos.domains.listByTenant(caller.tenantId)).map(toView);
  }

  async get(caller: Caller, id: string): Promise<DomainDetailView> {
    return this.detail(await this.getOrThrow(caller, id));
  }

  /**
   * Checks the records now. `code` must be the domain's verification code (the value its TXT record
   * carries), so a request meant for another claim of the name cannot verify this one. The domain
   * becomes verified when every record matches; a failed check never un-verifies (see docs/domains.md).
   */
  async verify(caller: Caller, name: string, code: string): Promise<DomainDetailView> {
    const domain = await this.getByNameOrThrow(caller, name);
    if (code.trim() !== domain.verificationCode) {
      throw new InvalidInputError('VERIFICATION_CODE_MISMATCH', `code is not the verification code of ${domain.domain}`, { field: 'code' });
    }
    return this.detail(await this.check(domain));
  }

  /** Publishes MX and TXT through the provider (create or update, never delete), then checks DNS. */
  async setupDnsProvider(caller: Caller, name: string, input: { dnsproviderApiToken: string; zoneId?: string }): Promise<ProviderSetup> {
    const domain = await this.getByNameOrThrow(caller, name);
    const token = input.dnsproviderApiToken.trim();
    if (token.length === 0) throw new InvalidInputError('DNSPROVIDER_TOKEN_MISSING', 'dnsproviderApiToken must not be empty', { field: 'dnsproviderApiToken' });
    const zone = input.zoneId === undefined ? await this.findZone(token, domain.domain) : await this.zoneById(token, input.zoneId, domain.domain);
    const changes: RecordChange[] = [];
    for (const record of this.currentRecords(domain)) changes.push(await this.publish(token, zone.id, record));
    return { domain: this.detail(await this.check(domain)), zone, changes };
  }

  async setEnabled(caller: Caller, id: string, enabled: boolean): Promise<DomainDetailView> {
    const domain = await this.getOrThrow(caller, id);
    await this.repos.domains.setEnabled(domain.id, enabled);
    this.recipients.forget();
    return this.detail({ ...domain, enabled });
  }

  /**
   * The domain row goes first, so SMTP refuses its addresses at once; then each of its inboxes is
   * deleted exactly as DELETE /inboxes/:id would (with the emails only that inbox holds). Catch-all
   * emails stay in the tenant's emails. Inboxes left by a crash in between receive nothing (their
   * domain is gone) and can still be deleted by hand.
   */
  async delete(caller: Caller, id: string): Promise<void> {
    await this.remove(await this.getOrThrow(caller, id));
  }

  private async remove(domain: DomainRecord): Promise<void> {
    await this.repos.domains.delete(domain.id);
    this.recipients.forget();
    // Listed after the row is gone, so an inbox created on the domain meanwhile is removed too.
    const inboxIds = await this.repos.domains.inboxIds(domain.id);
    // The domain is tenant-wide, so its inboxes go whatever environment the calling key is limited to.
    const tenantWide: Caller = { tenantId: domain.tenantId, keyId: 'domain-removal', environmentId: null, inboxId: null, scopes: ['api'] };
    for (const inboxId of inboxIds) await this.inboxes.delete(tenantWide, inboxId).catch((error: unknown) => this.ignoreGone(error));
  }

  /** The code an account must publish to take over another's unverified claim: HMAC-keyed, so no one else can predict it. */
  private claimCode(tenantId: string, ascii: string): string {
    return createHmac('sha256', this.settings.claimSecret).update(`domain-claim\n${tenantId}\n${ascii}`).digest('hex').slice(0, VERIFICATION_CODE_LENGTH);
  }

  /**
   * Another account's unverified claim does not block the name for good: it lapses after
   * `claimDays`, and before that an account whose TXT record is already published (its own code)
   * takes the name over. Verified claims and this account's own claims still answer 409.
   * Returns whether another account's claim was released.
   */
  private async releaseOrRefuse(caller: Caller, ascii: string): Promise<boolean> {
    const existing = await this.repos.domains.getByName(ascii);
    if (existing === undefined) return false;
    const code = this.claimCode(caller.tenantId, ascii);
    if (existing.tenantId === caller.tenantId || existing.verified) await this.assertUnclaimed(caller, ascii);
    const lapsed = Date.parse(existing.createdAt) <= Date.now() - this.settings.claimDays * 86_400_000;
    if (!lapsed && !(await this.publishedOwnership(ascii, code))) {
      const txt = this.ownershipRecord(ascii, code);
      throw new ConflictError(
        'DOMAIN_EXISTS',
        `${ascii} is claimed by another account but not verified: publish TXT ${txt.name} "${txt.value}" and add it again to take it over, or wait until that claim lapses (${this.settings.claimDays} days after it was made)`,
        { field: 'domain' },
      );
    }
    this.logger.info({ domainId: existing.id, domain: ascii, lapsed }, 'unverified custom domain claim released to another account');
    await this.remove(existing);
    return true;
  }

  private async publishedOwnership(ascii: string, code: string): Promise<boolean> {
    const [checked] = await checkRecords(this.resolve, [this.ownershipRecord(ascii, code)]);
    return checked?.status === 'verified';
  }

  private ownershipRecord(ascii: string, code: string): DnsRecord {
    return expectedRecords(ascii, code, this.settings.mxHost).find((record) => record.type === 'TXT') as DnsRecord;
  }

  /** One recheck round: up to RECHECK_BATCH enabled domains not checked within `intervalMs`. */
  async recheckDue(intervalMs: number, now = Date.now()): Promise<number> {
    const due = await this.repos.domains.listDueForCheck(new Date(now - intervalMs).toISOString(), RECHECK_BATCH);
    for (const domain of due) {
      const checked = await this.check(domain);
      const broken = checked.records.filter((record) => record.status === 'failed');
      if (!domain.verified && checked.verified) this.logger.info({ domainId: domain.id, domain: domain.domain }, 'custom domain verified by recheck');
      if (domain.verified && broken.length > 0) {
        this.logger.warn({ domainId: domain.id, domain: domain.domain, errors: broken.map((r) => r.error) }, 'custom domain DNS records broken');
      }
    }
    return due.length;
  }

  private async check(domain: DomainRecord): Promise<DomainRecord> {
    const records = await checkRecords(this.resolve, this.currentRecords(domain));
    const passed = records.every((record) => record.status === 'verified');
    const checkedAt = records[0]?.checkedAt ?? new Date().toISOString();
    await this.repos.domains.saveCheck(domain.id, { verified: passed, records, checkedAt });
    return { ...domain, verified: domain.verified || passed, records, lastCheckedAt: checkedAt };
  }

  /** The records as they must be now (MAILROOM_MX_HOST may have changed), keeping the last check of unchanged ones. */
  private currentRecords(domain: DomainRecord): DnsRecord[] {
    return expectedRecords(domain.domain, domain.verificationCode, this.settings.mxHost).map(
      (wanted) =>
        domain.records.find((stored) => stored.type === wanted.type && stored.name === wanted.name && stored.value === wanted.value && stored.priority === wanted.priority) ??
        wanted,
    );
  }

  private detail(domain: DomainRecord): DomainDetailView {
    return { ...toView(domain), verificationCode: domain.verificationCode, records: this.currentRecords(domain), lastCheckedAt: domain.lastCheckedAt };
  }

  private async assertUnclaimed(caller: Caller, ascii: string): Promise<void> {
    const existing = await this.repos.domains.getByName(ascii);
    if (existing === undefined) return;
    const whose = existing.tenantId === caller.tenantId ? `this account (id ${existing.id})` : 'another account';
    throw new ConflictError('DOMAIN_EXISTS', `${ascii} has already been added by ${whose}`, { field: 'domain' });
  }

  private async getOrThrow(caller: Caller, id: string): Promise<DomainRecord> {
    const domain = await this.repos.domains.get(caller.tenantId, id);
    if (domain === undefined) throw domainNotFound(id);
    return domain;
  }

  private async getByNameOrThrow(caller: Caller, name: string): Promise<DomainRecord> {
    const domain = await this.repos.domains.getByName(asciiDomain(name));
    if (domain === undefined || domain.tenantId !== caller.tenantId) throw domainNotFound(name);
    return domain;
  }

  private async findZone(token: string, domain: string): Promise<DnsProviderZone> {
    const candidates = zoneCandidates(domain);
    for (const candidate of candidates) {
      const [zone] = await this.provider.findZones(token, candidate);
      if (zone !== undefined) return zone;
    }
    throw new InvalidInputError('DNSPROVIDER_ZONE_NOT_FOUND', `This token sees no zone for ${domain} (looked for ${candidates.join(', ')}); pass zoneId`, {
      field: 'zoneId',
    });
  }

  private async zoneById(token: string, zoneId: string, domain: string): Promise<DnsProviderZone> {
    const zone = await this.provider.getZone(token, zoneId);
    if (!zoneContains(zone.name, domain)) {
      throw new InvalidInputError('DNSPROVIDER_ZONE_MISMATCH', `Zone ${zone.name} does not contain ${domain}`, { field: 'zoneId' });
    }
    return zone;
  }

  /** Ours already there: unchanged; our MX with another priority or an older ownership TXT: updated; else created. */
  private async publish(token: string, zoneId: string, record: DnsRecord): Promise<RecordChange> {
    const existing = await this.provider.listRecords(token, zoneId, { type: record.type, name: record.name });
    const input = { type: record.type, name: record.name, content: record.value, ttl: record.ttl, ...(record.priority === undefined ? {} : { priority: record.priority }) };
    const same = existing.find((found) => (record.type === 'MX' ? sameHost(found.content, record.value) : found.content === record.value));
    const replaceable = same ?? existing.find((found) => record.type === 'TXT' && found.content.startsWith(OWNERSHIP_PREFIX));
    const change = { type: record.type, name: record.name };
    if (same !== undefined && same.priority === record.priority) return { ...change, action: 'unchanged' };
    if (replaceable !== undefined) {
      await this.provider.updateRecord(token, zoneId, replaceable.id, input);
      return { ...change, action: 'updated' };
    }
    await this.provider.createRecord(token, zoneId, input);
    return { ...change, action: 'created' };
  }

  private ignoreGone(error: unknown): void {
    if (!(error instanceof NotFoundError)) throw error;
  }
}
