import { randomUUID } from 'node:crypto';
import { generateApiKey, type Caller } from '../core/api-key.js';
import { InvalidInputError, NotFoundError } from '../core/errors.js';
import type { ApiKeyScope } from '../core/vocab.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { ApiKeyRecord } from '../adapters/db/repositories/api-key.repository.js';
import type { InboxService } from './inbox.service.js';

export interface CreateInboxKeyInput {
  name?: string;
  scopes?: ApiKeyScope[];
  expiresAt?: string;
}

const DEFAULT_NAME = 'Inbox key';
const DEFAULT_SCOPES: ApiKeyScope[] = ['api'];

/**
 * Inbox-scoped keys (spec 4.3, 5.4): bound to one inbox, with the `api` scope (HTTP reads of that
 * inbox) and/or `imap` (IMAP LOGIN as the inbox's address). The full key is returned once.
 */
export class InboxKeyService {
  constructor(
    private readonly repos: Repositories,
    private readonly inboxes: InboxService,
  ) {}

  async create(caller: Caller, inboxId: string, input: CreateInboxKeyInput, now = Date.now()): Promise<{ record: ApiKeyRecord; key: string }> {
    const inbox = await this.inboxes.getRecordOrThrow(caller, inboxId);
    const name = (input.name ?? DEFAULT_NAME).trim();
    if (name.length === 0) throw new InvalidInputError('INVALID_NAME', 'name must not be blank', { field: 'name' });
    if (input.expiresAt !== undefined && Date.parse(input.expiresAt) <= now) {
      throw new InvalidInputError('INVALID_EXPIRY', 'expiresAt must be in the future', { field: 'expiresAt' });
    }
    const generated = generateApiKey();
    const record: ApiKeyRecord = {
      id: randomUUID(),
      tenantId: caller.tenantId,
      name,
      prefix: generated.prefix,
      keyHash: generated.hash,
      active: true,
      environmentId: inbox.environmentId,
      inboxId: inbox.id,
      scopes: [...new Set(input.scopes ?? DEFAULT_SCOPES)],
      lastUsedAt: null,
      expiresAt: input.expiresAt === undefined ? null : new Date(input.expiresAt).toISOString(),
      createdAt: new Date(now).toISOString(),
    };
    await this.repos.apiKeys.insert(record);
    return { record, key: generated.key };
  }

  async list(caller: Caller, inboxId: string): Promise<ApiKeyRecord[]> {
    await this.inboxes.getRecordOrThrow(caller, inboxId);
    return this.repos.apiKeys.listInboxKeys(caller.tenantId, inboxId);
  }

  async delete(caller: Caller, inboxId: string, keyId: string): Promise<void> {
    await this.inboxes.getRecordOrThrow(caller, inboxId);
    const key = await this.repos.apiKeys.get(caller.tenantId, keyId);
    if (key === undefined || key.inboxId !== inboxId) throw new NotFoundError('API_KEY_NOT_FOUND', `API key ${keyId} not found for inbox ${inboxId}`);
    await this.repos.apiKeys.delete(caller.tenantId, keyId);
  }
}
