import { hashApiKey, type Caller } from '../core/api-key.js';
import { UnauthenticatedError } from '../core/errors.js';
import type { Repositories } from '../adapters/db/repositories/index.js';

/** lastUsedAt is written at most once a minute per key, so reads stay reads. */
const TOUCH_INTERVAL_MS = 60_000;

export class AuthService {
  constructor(
    private readonly repos: Repositories,
    private readonly onBackgroundError: (error: unknown) => void,
  ) {}

  /**
   * Every request looks its key up again (one indexed read), so a deactivated, deleted or expired
   * key is refused at once on every node: there is no cache to invalidate.
   */
  async authenticate(key: string | undefined): Promise<Caller> {
    if (key === undefined || key.length === 0) throw new UnauthenticatedError('API_KEY_MISSING', 'An API key is required in the x-api-key header');
    if (key.length > 256) throw new UnauthenticatedError('API_KEY_INVALID', 'Invalid API key');
    const record = await this.repos.apiKeys.getByHash(hashApiKey(key));
    if (record === undefined) throw new UnauthenticatedError('API_KEY_INVALID', 'Invalid API key');
    if (!record.active) throw new UnauthenticatedError('API_KEY_INACTIVE', 'This API key is deactivated');
    const now = Date.now();
    if (record.expiresAt !== null && Date.parse(record.expiresAt) <= now) {
      throw new UnauthenticatedError('API_KEY_EXPIRED', 'This API key has expired');
    }
    if (record.lastUsedAt === null || now - Date.parse(record.lastUsedAt) > TOUCH_INTERVAL_MS) {
      this.repos.apiKeys.touch(record.id, new Date(now).toISOString()).catch(this.onBackgroundError);
    }
    return {
      tenantId: record.tenantId,
      keyId: record.id,
      environmentId: record.environmentId,
      inboxId: record.inboxId,
      scopes: record.scopes,
    };
  }
}
