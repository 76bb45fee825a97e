import { randomUUID } from 'node:crypto';
import type { Caller } from '../core/api-key.js';
import { InvalidInputError, NotFoundError } from '../core/errors.js';
import { collisionSuffix, generatePrefix, prefixProblem } from '../core/inbox-address.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { InboxRecord } from '../adapters/db/repositories/inbox.repository.js';
import type { Environment } from '../adapters/db/repositories/tenant.repository.js';
import { PRODUCTION_SLUG } from './tenant.service.js';

export interface CreateInboxInput {
  prefix?: string;
  domainId?: string;
  environmentId?: string;
  tags?: string[];
  ttlSeconds?: number;
}

/** The Inbox object of spec 2.5. */
export interface InboxView {
  id: string;
  address: string;
  addressPrefix: string;
  tags: string[];
  expiresAt: string | null;
  active: boolean;
  messageCount: number;
  createdAt: string;
  domain: { id: string | null; domain: string };
  environment: { id: string; name: string; slug: string };
}

const PREFIX_MESSAGES = {
  empty: 'prefix must not be empty',
  too_long: 'prefix must be at most 64 octets',
  invalid_characters: 'prefix may only contain letters, digits, dots (not leading, trailing or doubled) and !#$%&\'*+/=?^_`{|}~-',
  reserved: 'prefix is a reserved role name (RFC 2142)',
} as const;

export const TTL_RANGE = { min: 60, max: 86_400 } as const;
const MAX_ATTEMPTS = 5;

export class InboxService {
  constructor(
    private readonly repos: Repositories,
    private readonly sharedDomain: string,
  ) {}

  async create(caller: Caller, input: CreateInboxInput): Promise<InboxView> {
    const environment = await this.environmentFor(caller, input.environmentId);
    const domain = await this.domainFor(caller, input.domainId);
    const given = input.prefix?.trim().toLowerCase();
    if (given !== undefined) {
      const problem = prefixProblem(given);
      if (problem !== undefined) throw new InvalidInputError('INVALID_PREFIX', PREFIX_MESSAGES[problem], { field: 'prefix' });
    }
    if (input.ttlSeconds !== undefined && (input.ttlSeconds < TTL_RANGE.min || input.ttlSeconds > TTL_RANGE.max)) {
      throw new InvalidInputError('INVALID_TTL', `ttlSeconds must be between ${TTL_RANGE.min} and ${TTL_RANGE.max}`, { field: 'ttlSeconds' });
    }
    const now = Date.now();
    const base = given ?? generatePrefix();
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const prefix = attempt === 0 ? base : `${base.slice(0, 59)}${collisionSuffix()}`;
      const address = `${prefix}@${domain.domain}`;
      if (await this.repos.inboxes.addressTaken(address)) continue;
      const record: InboxRecord = {
        id: randomUUID(),
        tenantId: caller.tenantId,
        environmentId: environment.id,
        domainId: domain.id,
        domain: domain.domain,
        addressPrefix: prefix,
        address,
        tags: [...new Set(input.tags ?? [])],
        expiresAt: input.ttlSeconds === undefined ? null : new Date(now + input.ttlSeconds * 1000).toISOString(),
        active: true,
        createdAt: new Date(now).toISOString(),
      };
      try {
        await this.repos.inboxes.insert(record);
      } catch (error) {
        // Another request took the address between the check and the insert: try the next suffix.
        if (await this.repos.inboxes.addressTaken(address)) continue;
        throw error;
      }
      return this.view(record, environment, 0);
    }
    throw new InvalidInputError('PREFIX_UNAVAILABLE', 'Could not find a free address for this prefix', { field: 'prefix' });
  }

  async getRecordOrThrow(caller: Caller, inboxId: string): Promise<InboxRecord> {
    const inbox = await this.repos.inboxes.get(caller.tenantId, inboxId);
    if (inbox === undefined || (caller.environmentId !== null && inbox.environmentId !== caller.environmentId)) {
      throw new NotFoundError('INBOX_NOT_FOUND', `Inbox ${inboxId} not found`);
    }
    return inbox;
  }

  async view(record: InboxRecord, environment?: Environment, messageCount?: number): Promise<InboxView> {
    const env = environment ?? (await this.repos.tenants.getEnvironment(record.tenantId, record.environmentId));
    return {
      id: record.id,
      address: record.address,
      addressPrefix: record.addressPrefix,
      tags: record.tags,
      expiresAt: record.expiresAt,
      active: record.active,
      messageCount: messageCount ?? (await this.repos.inboxes.countMessages(record.id)),
      createdAt: record.createdAt,
      domain: { id: record.domainId, domain: record.domain },
      environment: { id: record.environmentId, name: env?.name ?? '', slug: env?.slug ?? '' },
    };
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
