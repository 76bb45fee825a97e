import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { InboxKeyService } from '../../../services/inbox-key.service.js';
import { ApiKeySchema, ApiKeyScopeSchema, CreatedApiKeySchema, toApiKeyView } from '../schemas/api-key.js';
import { IsoDate, errorResponses } from '../schemas/common.js';
import { InboxIdParams } from '../schemas/inbox.js';

const CreateInboxKeyBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, default: 'Inbox key' })),
    scopes: Type.Optional(
      Type.Array(ApiKeyScopeSchema, { minItems: 1, uniqueItems: true, default: ['api'], description: 'api: HTTP reads of the inbox; imap: IMAP login as the inbox address' }),
    ),
    expiresAt: Type.Optional(IsoDate),
  },
  { additionalProperties: false },
);

const KeyParams = Type.Object({ inboxId: Type.String({ minLength: 1, maxLength: 100 }), keyId: Type.String({ minLength: 1, maxLength: 100 }) });

/** Managing inbox-scoped keys is a management route: tenant-level keys only (spec 5.4). */
export function registerInboxKeyRoutes(app: FastifyInstance, keys: InboxKeyService): void {
  const tags = ['Inbox API keys'];

  app.post('/inboxes/:inboxId/api-keys', {
    schema: {
      tags,
      summary: 'Create an inbox-scoped key (the full key is returned only here)',
      params: InboxIdParams,
      body: Type.Optional(CreateInboxKeyBody),
      response: { 201: CreatedApiKeySchema, ...errorResponses },
    },
    handler: async (request, reply) => {
      const { inboxId } = request.params as Static<typeof InboxIdParams>;
      const created = await keys.create(request.caller, inboxId, (request.body ?? {}) as Static<typeof CreateInboxKeyBody>);
      return reply.status(201).send({ ...toApiKeyView(created.record), key: created.key });
    },
  });

  app.get('/inboxes/:inboxId/api-keys', {
    schema: {
      tags,
      summary: "List an inbox's keys (prefix only)",
      params: InboxIdParams,
      response: { 200: Type.Object({ data: Type.Array(Type.Ref(ApiKeySchema)) }, { title: 'ApiKeyList' }), ...errorResponses },
    },
    handler: async (request) => {
      const { inboxId } = request.params as Static<typeof InboxIdParams>;
      return { data: (await keys.list(request.caller, inboxId)).map(toApiKeyView) };
    },
  });

  app.delete('/inboxes/:inboxId/api-keys/:keyId', {
    schema: { tags, summary: 'Delete an inbox-scoped key', params: KeyParams, response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses } },
    handler: async (request, reply) => {
      const { inboxId, keyId } = request.params as Static<typeof KeyParams>;
      await keys.delete(request.caller, inboxId, keyId);
      return reply.status(204).send();
    },
  });
}
