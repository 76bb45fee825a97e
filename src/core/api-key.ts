import { createHash, randomBytes } from 'node:crypto';
import type { ApiKeyScope } from './vocab.js';

/** Every key starts with this, so leaked keys are recognisable by secret scanners. */
export const API_KEY_PREFIX = 'mr_';
const RANDOM_BYTES = 32;

export interface GeneratedKey {
  key: string;
  prefix: string;
  hash: string;
}

/**
 * Keys carry 256 random bits, so a plain SHA-256 is a sound hash (no salt or slow KDF is needed for
 * high-entropy secrets), and lookup by hash makes the comparison independent of the key's value.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function generateApiKey(): GeneratedKey {
  const key = API_KEY_PREFIX + randomBytes(RANDOM_BYTES).toString('base64url');
  return { key, prefix: key.slice(0, 8), hash: hashApiKey(key) };
}

/** Who is calling: the result of authenticating a request, passed to every service call. */
export interface Caller {
  tenantId: string;
  keyId: string;
  /** null: all environments. */
  environmentId: string | null;
  /** Set for inbox-scoped keys (spec 5.4). */
  inboxId: string | null;
  scopes: ApiKeyScope[];
  /**
   * How the caller proved who it is; absent means an API key. Reserved for the dashboard's JWT
   * sessions, which may open broadcast SSE streams but not distributed ones (spec 5.6).
   */
  credential?: 'api-key' | 'jwt';
  /** For a JWT: its refresh session and expiry (ms), re-checked for the SSE streams it opened. */
  session?: { id: string | undefined; expiresAtMs: number };
}

export const isInboxScoped = (caller: Caller): boolean => caller.inboxId !== null;

/**
 * Whether a filter on `environmentId` can match anything for this caller: an environment-scoped key
 * asking for another environment gets an empty list, not its own environment's items.
 */
export const canSeeEnvironment = (caller: Caller, environmentId: string | undefined): boolean =>
  environmentId === undefined || caller.environmentId === null || caller.environmentId === environmentId;
