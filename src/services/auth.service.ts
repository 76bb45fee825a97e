import { hashApiKey, type Caller } from '../core/api-key.js';
import { UnauthenticatedError } from '../core/errors.js';
import type { Repositories } from '../adapters/db/repositories/index.js';

/** lastUsedAt is written at most once a minute per key, so reads stay reads. */
const TOUCH_INTERVAL_MS = 60_000;
/** Bounds the per-process memory of recent touches; forgetting them costs at most one extra write per key. */
const MAX_REMEMBERED_TOUCHES = 10_000;

export class AuthService {
  /**
   * Touches this process has started but may not have committed yet: without it, a burst of
   * concurrent requests with a fresh key would all read lastUsedAt as stale and all write it.
   */
  private readonly touchedAt = new Map<string, number>();

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
    this.touchIfStale(record.id, record.lastUsedAt, now);
    return {
      tenantId: record.tenantId,
      keyId: record.id,
      environmentId: record.environmentId,
      inboxId: record.inboxId,
      scopes: record.scopes,
    };
  }

  private touchIfStale(keyId: string, lastUsedAt: string | null, now: number): void {
    const last = Math.max(lastUsedAt === null ? 0 : Date.parse(lastUsedAt), this.touchedAt.get(keyId) ?? 0);
    if (now - last <= TOUCH_INTERVAL_MS) return;
    if (this.touchedAt.size >= MAX_REMEMBERED_TOUCHES) this.touchedAt.clear();
    this.touchedAt.set(keyId, now);
    this.repos.apiKeys.touch(keyId, new Date(now).toISOString()).catch(this.onBackgroundError);
  }
}
