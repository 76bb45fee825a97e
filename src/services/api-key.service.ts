import type { Caller } from '../core/api-key.js';
import { InvalidInputError, NotFoundError } from '../core/errors.js';
import type { Page, PageRequest } from '../core/pagination.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { ApiKeyRecord } from '../adapters/db/repositories/api-key.repository.js';
import { mintApiKey } from './mint-api-key.js';

export interface CreateApiKeyInput {
  name: string;
  environmentId?: string | null;
  expiresAt?: string | null;
}

const keyNotFound = (id: string) => new NotFoundError('API_KEY_NOT_FOUND', `API key ${id} not found`);

/**
 * Tenant-level keys (spec 4.1, 5.7). An environment-scoped key manages only keys of its own
 * environment, so it can never mint a key that sees more than it does. Inbox-scoped keys are
 * managed under their inbox (InboxKeyService) and are absent here.
 */
export class ApiKeyService {
  constructor(private readonly repos: Repositories) {}

  list(caller: Caller, request: PageRequest): Promise<Page<ApiKeyRecord>> {
    return this.repos.apiKeys.listTenantKeys(caller.tenantId, request, caller.environmentId ?? undefined);
  }

  async create(caller: Caller, input: CreateApiKeyInput, now = Date.now()): Promise<{ record: ApiKeyRecord; key: string }> {
    const environmentId = await this.environmentFor(caller, input.environmentId ?? null);
    const minted = mintApiKey(
      { tenantId: caller.tenantId, name: input.name, environmentId, inboxId: null, scopes: ['api'], expiresAt: input.expiresAt },
      now,
    );
    await this.repos.apiKeys.insert(minted.record);
    return minted;
  }

  async setActive(caller: Caller, id: string, active: boolean): Promise<ApiKeyRecord> {
    const key = await this.getOrThrow(caller, id);
    if (!active) await this.assertNotLastActiveSelf(caller, key);
    if (!(await this.repos.apiKeys.setActive(caller.tenantId, id, active))) throw keyNotFound(id);
    return { ...key, active };
  }

  async delete(caller: Caller, id: string): Promise<void> {
    const key = await this.getOrThrow(caller, id);
    await this.assertNotLastActiveSelf(caller, key);
    if (!(await this.repos.apiKeys.delete(caller.tenantId, id))) throw keyNotFound(id);
  }

  private async getOrThrow(caller: Caller, id: string): Promise<ApiKeyRecord> {
    const key = await this.repos.apiKeys.get(caller.tenantId, id);
    const visible = key !== undefined && key.inboxId === null && (caller.environmentId === null || key.environmentId === caller.environmentId);
    if (!visible) throw keyNotFound(id);
    return key;
  }

  /**
   * Nobody locks themselves out: the key making the call may not switch itself off while no other
   * active key reaches as far. For an all-environment key that means another all-environment key,
   * since environment-scoped keys can never mint one again.
   */
  private async assertNotLastActiveSelf(caller: Caller, key: ApiKeyRecord): Promise<void> {
    if (key.id !== caller.keyId || !key.active) return;
    if ((await this.repos.apiKeys.countActiveTenantKeys(caller.tenantId, key.environmentId)) <= 1) {
      const reach = key.environmentId === null ? 'with access to all environments' : 'for this environment';
      throw new InvalidInputError('LAST_ACTIVE_KEY', `This is the account's last active key ${reach}; create another such key first`, { field: 'id' });
    }
  }

  /** null means all environments, which only an all-environment key may grant. */
  private async environmentFor(caller: Caller, wanted: string | null): Promise<string | null> {
    if (wanted === null) return caller.environmentId;
    const environment = await this.repos.tenants.getEnvironment(caller.tenantId, wanted);
    if (environment === undefined || (caller.environmentId !== null && environment.id !== caller.environmentId)) {
      throw new InvalidInputError('INVALID_ENVIRONMENT', 'environmentId is not an environment of this account', { field: 'environmentId' });
    }
    return environment.id;
  }
}
