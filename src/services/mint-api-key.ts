import { randomUUID } from 'node:crypto';
import { generateApiKey } from '../core/api-key.js';
import { InvalidInputError } from '../core/errors.js';
import type { ApiKeyScope } from '../core/vocab.js';
import type { ApiKeyRecord } from '../adapters/db/repositories/api-key.repository.js';

export interface ApiKeySpec {
  tenantId: string;
  name: string;
  environmentId: string | null;
  inboxId: string | null;
  scopes: ApiKeyScope[];
  expiresAt?: string | null;
}

/**
 * Validates a new key's name and expiry and mints it: the record to store (hash and prefix only) and
 * the full key, which exists nowhere else and is shown to the caller once.
 */
export function mintApiKey(spec: ApiKeySpec, now = Date.now()): { record: ApiKeyRecord; key: string } {
  const name = spec.name.trim();
  if (name.length === 0) throw new InvalidInputError('INVALID_NAME', 'name must not be blank', { field: 'name' });
  if (spec.expiresAt != null && Date.parse(spec.expiresAt) <= now) {
    throw new InvalidInputError('INVALID_EXPIRY', 'expiresAt must be in the future', { field: 'expiresAt' });
  }
  const generated = generateApiKey();
  return {
    key: generated.key,
    record: {
      id: randomUUID(),
      tenantId: spec.tenantId,
      name,
      prefix: generated.prefix,
      keyHash: generated.hash,
      active: true,
      environmentId: spec.environmentId,
      inboxId: spec.inboxId,
      scopes: [...new Set(spec.scopes)],
      lastUsedAt: null,
      expiresAt: spec.expiresAt == null ? null : new Date(spec.expiresAt).toISOString(),
      createdAt: new Date(now).toISOString(),
    },
  };
}
