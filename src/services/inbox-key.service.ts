import type { Caller } from '../core/api-key.js';
import { NotFoundError } from '../core/errors.js';
import type { ApiKeyScope } from '../core/vocab.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { ApiKeyRecord } from '../adapters/db/repositories/api-key.repository.js';
import type { InboxService } from './inbox.service.js';
import { mintApiKey } from './mint-api-key.js';

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
    const minted = mintApiKey(
      {
        tenantId: caller.tenantId,
        name: input.name ?? DEFAULT_NAME,
        environmentId: inbox.environmentId,
        inboxId: inbox.id,
        scopes: input.scopes ?? DEFAULT_SCOPES,
        expiresAt: input.expiresAt,
      },
      now,
    );
    await this.repos.apiKeys.insert(minted.record);
    return minted;
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
