import { Type } from '@sinclair/typebox';
import { API_KEY_SCOPES } from '../../../core/vocab.js';
import type { ApiKeyRecord } from '../../../adapters/db/repositories/api-key.repository.js';
import { IsoDate, Nullable } from './common.js';

export const ApiKeyScopeSchema = Type.Union(API_KEY_SCOPES.map((scope) => Type.Literal(scope)));

/** Spec 2.2, plus the binding and scopes of inbox-scoped keys. The key itself is never listed. */
export const ApiKeySchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    prefix: Type.String({ description: 'First 8 characters of the key, for identification' }),
    active: Type.Boolean(),
    environmentId: Nullable(Type.String()),
    inboxId: Nullable(Type.String({ description: 'The inbox an inbox-scoped key is bound to; null for tenant-level keys' })),
    scopes: Type.Array(ApiKeyScopeSchema),
    lastUsedAt: Nullable(IsoDate),
    expiresAt: Nullable(IsoDate),
    createdAt: IsoDate,
  },
  { $id: 'ApiKey', title: 'ApiKey' },
);

export const CreatedApiKeySchema = Type.Object(
  { ...ApiKeySchema.properties, key: Type.String({ description: 'The full key: shown only in this response' }) },
  { title: 'CreatedApiKey' },
);

export function toApiKeyView(record: ApiKeyRecord) {
  const { tenantId: _tenantId, keyHash: _keyHash, ...view } = record;
  return view;
}
