import { timeOrderedUuid } from '../core/time-ordered-id.js';
import { canSeeEnvironment, type Caller } from '../core/api-key.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../core/errors.js';
import { collisionSuffix, generatePrefix, prefixProblem } from '../core/inbox-address.js';
import { makePage, type Page, type PageRequest } from '../core/pagination.js';
import type { Repositories, UnitOfWork } from '../adapters/db/repositories/index.js';
import type { InboxChanges, InboxRecord, InboxStats } from '../adapters/db/repositories/inbox.repository.js';
import type { Environment } from '../adapters/db/repositories/tenant.repository.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { EventBus } from '../ports/event-bus.js';
import { PRODUCTION_SLUG } from './tenant.service.js';
import { normaliseAliases } from './inbox-aliases.js';
import type { TenantLimits } from './tenant-limits.js';
import type { RecipientChanges } from './recipient.service.js';

export interface CreateInboxInput {
  prefix?: string;
  /** A display name; the address still comes from prefix (or is generated). */
  name?: string;
  domainId?: string;
  environmentId?: string;
  tags?: string[];
  ttlSeconds?: number;
  aliases?: string[];
}

/** PATCH /inboxes/:id: each field given replaces the current value. */
export type UpdateInboxInput = InboxChanges;

/** The Inbox object of spec 2.5. */
export interface InboxView {
  id: string;
  address: string;
  addressPrefix: string;
  name: string | null;
  aliases: string[];
  tags: string[];
  expiresAt: string | null;
  active: boolean;
  messageCount: number;
  createdAt: string;
  domain: { id: string | null; domain: string };
  environment: { id: string; name: string; slug: string };
}

/** Get-inbox: the Inbox object plus its stats. */
export interface InboxDetailView extends InboxView {
  stats: InboxStats;
}

export interface InboxListQuery {
  environmentId?: string;
  domainId?: string;
  tags?: string[];
  includeExpired?: boolean;
}

const PREFIX_MESSAGES = {
  empty: 'prefix must not be empty',
  too_long: 'prefix must be at most 64 octets',
  invalid_characters: 'prefix may only contain letters, digits, dots (not leading, trailing or doubled) and !#$%&\'*+/=?^_`{|}~-',
  reserved: 'prefix is a reserved role name (RFC 2142)',
} as const;

export const TTL_RANGE = { min: 60, max: 86_400 } as const;
const MAX_ATTEMPTS = 5;
/** Expired inboxes removed per sweeper round; the periodic task repeats a full round at once. */
const SWEEP_BATCH = 100;

const inboxNotFound = (id: string) => new NotFoundError('INBOX_NOT_FOUND', `Inbox ${id} not found`);

export class InboxService {
  constructor(
    private readonly repos: Repositories,
    private readonly unitOfWork: UnitOfWork,
    private readonly blobs: BlobStore,
    private readonly events: EventBus,
    private readonly sharedDomain: string,
    private readonly onBackgroundError: (error: unknown) => void,
    private readonly limits: TenantLimits,
    /** RCPT TO's cache of served addresses: a new, changed or removed inbox routes anew at once. */
    private readonly recipients: RecipientChanges,
  ) {}

  async create(caller: Caller, input: CreateInboxInput): Promise<InboxView> {
    const environment = await this.environmentFor(caller, input.environmentId);
    const domain = await this.domainFor(caller, input.domainId);
    const given = input.prefix?.toLowerCase();
    if (given !== undefined) {
      const problem = prefixProblem(given);
      if (problem !== undefined) throw new InvalidInputError('INVALID_PREFIX', PREFIX_MESSAGES[problem], { field: 'prefix' });
    }
    if (input.ttlSeconds !== undefined && (input.ttlSeconds < TTL_RANGE.min || input.ttlSeconds > TTL_RANGE.max)) {
      throw new InvalidInputError('INVALID_TTL', `ttlSeconds must be between ${TTL_RANGE.min} and ${TTL_RANGE.max}`, { field: 'ttlSeconds' });
    }
    await this.limits.assertRoomFor(caller.tenantId, 'inboxes');
    const now = Date.now();
    const base = given ?? generatePrefix();
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const prefix = attempt === 0 ? base : `${base.slice(0, 59)}${collisionSuffix()}`;
      const address = `${prefix}@${domain.domain}`;
      if (await this.addressTaken(address)) continue;
      const aliases = normaliseAliases(input.aliases ?? [], { address, domain: domain.domain });
      await this.assertAliasesFree(aliases, undefined);
      const record: InboxRecord = {
        id: timeOrderedUuid(now),
        tenantId: caller.tenantId,
        environmentId: environment.id,
        domainId: domain.id,
        domain: domain.domain,
        addressPrefix: prefix,
        address,
        name: input.name ?? null,
        aliases,
        tags: [...new Set(input.tags ?? [])],
        expiresAt: input.ttlSeconds === undefined ? null : new Date(now + input.ttlSeconds * 1000).toISOString(),
        active: true,
        createdAt: new Date(now).toISOString(),
      };
      try {
        await this.unitOfWork((repos) => repos.inboxes.insert(record));
        // Mail for this address may have gone to its domain's catch-all until now.
        this.recipients.forget();
      } catch (error) {
        // Another request took the address between the check and the insert: try the next suffix.
        if (await this.addressTaken(address)) continue;
        await this.assertAliasesFree(aliases, undefined);
        throw error;
      }
      return toView(record, environment, 0);
    }
    throw new InvalidInputError('PREFIX_UNAVAILABLE', 'Could not find a free address for this prefix', { field: 'prefix' });
  }

  /**
   * The caller's inbox, or not found: another tenant's, another environment's (environment-scoped
   * keys) and an expired one awaiting the sweeper are all absent. Inbox-scoped keys are checked by
   * the transport before this (a different inbox is 403, spec 5.4).
   */
  async getRecordOrThrow(caller: Caller, inboxId: string, now = Date.now()): Promise<InboxRecord> {
    const inbox = await this.repos.inboxes.get(caller.tenantId, inboxId);
    if (inbox === undefined || (caller.environmentId !== null && inbox.environmentId !== caller.environmentId) || isExpired(inbox, now)) {
      throw inboxNotFound(inboxId);
    }
    return inbox;
  }

  async list(caller: Caller, query: InboxListQuery, request: PageRequest): Promise<Page<InboxView>> {
    // An environment-scoped key asking for another environment gets nothing, not its own environment's inboxes.
    if (!canSeeEnvironment(caller, query.environmentId)) return makePage([], 0, request);
    const page = await this.repos.inboxes.list(
      caller.tenantId,
      {
        environmentId: caller.environmentId ?? query.environmentId,
        domainId: query.domainId,
        tags: query.tags,
        inboxId: caller.inboxId ?? undefined,
        includeExpired: query.includeExpired ?? false,
        now: new Date().toISOString(),
      },
      request,
    );
    const [environments, counts] = await Promise.all([
      this.repos.tenants.listEnvironments(caller.tenantId),
      this.repos.inboxes.countMessagesOf(page.data.map((inbox) => inbox.id)),
    ]);
    const byId = new Map(environments.map((environment) => [environment.id, environment]));
    return { ...page, data: page.data.map((inbox) => toView(inbox, byId.get(inbox.environmentId), counts.get(inbox.id) ?? 0)) };
  }

  async getDetailOrThrow(caller: Caller, inboxId: string): Promise<InboxDetailView> {
    const inbox = await this.getRecordOrThrow(caller, inboxId);
    const [environment, stats] = await Promise.all([
      this.repos.tenants.getEnvironment(inbox.tenantId, inbox.environmentId),
      this.repos.inboxes.stats(inbox.id),
    ]);
    return { ...toView(inbox, environment, stats.messageCount), stats };
  }

  /**
   * PATCH /inboxes/:id (tenant-level keys only, enforced by the transport). An inactive inbox
   * refuses new mail at RCPT TO and keeps its messages.
   */
  async update(caller: Caller, inboxId: string, input: UpdateInboxInput): Promise<InboxView> {
    const inbox = await this.getRecordOrThrow(caller, inboxId);
    const changes: InboxChanges = {
      ...(input.aliases === undefined ? {} : { aliases: normaliseAliases(input.aliases, inbox) }),
      ...(input.tags === undefined ? {} : { tags: [...new Set(input.tags)] }),
      ...(input.active === undefined ? {} : { active: input.active }),
    };
    if (changes.aliases !== undefined) await this.assertAliasesFree(changes.aliases, inbox.id);
    try {
      await this.unitOfWork((repos) => repos.inboxes.update(caller.tenantId, inbox.id, changes));
      this.recipients.forget();
    } catch (error) {
      // Another request took one of the aliases between the check and the write.
      if (changes.aliases !== undefined) await this.assertAliasesFree(changes.aliases, inbox.id);
      throw error;
    }
    const [environment, counts] = await Promise.all([
      this.repos.tenants.getEnvironment(inbox.tenantId, inbox.environmentId),
      this.repos.inboxes.countMessagesOf([inbox.id]),
    ]);
    return toView({ ...inbox, ...changes }, environment, counts.get(inbox.id) ?? 0);
  }

  /** DELETE /inboxes/:id (tenant-level keys only, enforced by the transport). */
  async delete(caller: Caller, inboxId: string): Promise<void> {
    const inbox = await this.repos.inboxes.get(caller.tenantId, inboxId);
    if (inbox === undefined || (caller.environmentId !== null && inbox.environmentId !== caller.environmentId)) throw inboxNotFound(inboxId);
    if (!(await this.remove(inbox))) throw inboxNotFound(inboxId);
  }

  /**
   * One sweeper round: removes up to SWEEP_BATCH expired inboxes (spec 3), with their messages, and
   * returns how many it removed. The state is in the database, so a restart loses nothing, and RCPT TO
   * already refuses an expired address before the sweeper gets to it.
   */
  async deleteExpired(now = Date.now()): Promise<number> {
    const expired = await this.repos.inboxes.listExpired(new Date(now).toISOString(), SWEEP_BATCH);
    let removed = 0;
    for (const inbox of expired) if (await this.remove(inbox)) removed += 1;
    return removed;
  }

  /**
   * Rows first, in one transaction (inbox, messages, its keys, and the emails no other inbox
   * references), blobs after: a crash in between leaves orphan files, never rows without files.
   */
  private async remove(inbox: InboxRecord): Promise<boolean> {
    const removed = await this.unitOfWork((repos) => repos.inboxes.remove(inbox.tenantId, inbox.id));
    this.recipients.forget();
    if (removed === undefined) return false;
    await Promise.all(removed.blobKeys.map((key) => this.blobs.delete(key).catch(this.onBackgroundError)));
    const timestamp = new Date().toISOString();
    for (const id of removed.emailIds) {
      this.events
        .publish({ type: 'email.deleted', tenantId: inbox.tenantId, environmentId: inbox.environmentId, timestamp, data: { id } })
        .catch(this.onBackgroundError);
    }
    return true;
  }

  private async addressTaken(address: string): Promise<boolean> {
    return (await this.repos.inboxes.ownerOfAddress(address)) !== undefined;
  }

  /** Aliases are unique like addresses: one that is another inbox's address or alias is a 409. */
  private async assertAliasesFree(aliases: readonly string[], ownInboxId: string | undefined): Promise<void> {
    for (const [index, alias] of aliases.entries()) {
      const owner = await this.repos.inboxes.ownerOfAddress(alias);
      if (owner !== undefined && owner !== ownInboxId) {
        throw new ConflictError('ALIAS_TAKEN', `${alias} is already the address or an alias of an inbox`, { field: `aliases.${index}` });
      }
    }
  }

  private async environmentFor(caller: Caller, environmentId: string | undefined): Promise<Environment> {
    const wanted = environmentId ?? caller.environmentId ?? undefined;
    const environment =
      wanted === undefined
        ? await this.repos.tenants.getEnvironmentBySlug(caller.tenantId, PRODUCTION_SLUG)
        : await this.repos.tenants.getEnvironment(caller.tenantId, wanted);
    if (environment === undefined || (caller.environmentId !== null && environment.id !== caller.environmentId)) {
      throw new InvalidInputError('INVALID_ENVIRONMENT', 'environmentId is not an environment of this account', { field: 'environmentId' });
    }
    return environment;
  }

  private async domainFor(caller: Caller, domainId: string | undefined): Promise<{ id: string | null; domain: string }> {
    if (domainId === undefined) {
      const tenant = await this.repos.tenants.get(caller.tenantId);
      if (tenant?.defaultDomain) {
        const own = await this.repos.domains.getByName(tenant.defaultDomain);
        if (own !== undefined && own.tenantId === caller.tenantId && own.verified && own.enabled) return { id: own.id, domain: own.domain };
      }
      return { id: null, domain: this.sharedDomain };
    }
    const domain = await this.repos.domains.get(caller.tenantId, domainId);
    if (domain === undefined || !domain.verified || !domain.enabled) {
      throw new InvalidInputError('INVALID_DOMAIN', 'domainId must be a verified, enabled domain of this account', { field: 'domainId' });
    }
    return { id: domain.id, domain: domain.domain };
  }
}

const isExpired = (inbox: InboxRecord, now: number): boolean => inbox.expiresAt !== null && Date.parse(inbox.expiresAt) <= now;

function toView(record: InboxRecord, environment: Environment | undefined, messageCount: number): InboxView {
  return {
    id: record.id,
    address: record.address,
    addressPrefix: record.addressPrefix,
    name: record.name,
    aliases: record.aliases,
    tags: record.tags,
    expiresAt: record.expiresAt,
    active: record.active,
    messageCount,
    createdAt: record.createdAt,
    domain: { id: record.domainId, domain: record.domain },
    environment: { id: record.environmentId, name: environment?.name ?? '', slug: environment?.slug ?? '' },
  };
}
