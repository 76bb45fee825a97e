import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ApiKeyService } from '../../../services/api-key.service.js';
import { ApiKeySchema, CreatedApiKeySchema, toApiKeyView } from '../schemas/api-key.js';
import { IdParam, Nullable, PageOf, PageQuery, errorResponses } from '../schemas/common.js';

const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'What the key is for' }),
    environmentId: Type.Optional(
      Nullable(Type.String({ minLength: 1, maxLength: 100, description: 'Scope the key to this environment; null or absent: all environments (an environment-scoped caller can only create keys of its own environment)' })),
    ),
    expiresAt: Type.Optional(Nullable(Type.String({ format: 'date-time', description: 'The key stops working at this time (must be in the future); null or absent: never' }))),
  },
  { additionalProperties: false },
);

const ListQuery = Type.Object(PageQuery(20, 100));

/** Spec 4.1 and 5.7: tenant-level keys. Inbox-scoped keys live under /inboxes/:inboxId/api-keys. */
export function registerApiKeyRoutes(app: FastifyInstance, keys: ApiKeyService): void {
  const tags = ['API keys'];

  app.get('/api-keys', {
    schema: {
      tags,
      summary: "List the account's tenant-level keys (prefix only, never the key)",
      querystring: ListQuery,
      response: { 200: PageOf(Type.Ref(ApiKeySchema), 'ApiKeyPage'), ...errorResponses },
    },
    handler: async (request) => {
      const query = request.query as Static<typeof ListQuery>;
      const page = await keys.list(request.caller, { page: query.page ?? 1, perPage: query.perPage ?? 20 });
      return { ...page, data: page.data.map(toApiKeyView) };
    },
  });

  app.post('/api-keys', {
    schema: {
      tags,
      summary: 'Create a key; the full key is in this response only',
      body: CreateApiKeyBody,
      response: { 201: CreatedApiKeySchema, ...errorResponses },
    },
    handler: async (request, reply) => {
      const created = await keys.create(request.caller, request.body as Static<typeof CreateApiKeyBody>);
      return reply.status(201).send({ ...toApiKeyView(created.record), key: created.key });
    },
  });

  for (const [action, active] of [['activate', true], ['deactivate', false]] as const) {
    app.post(`/api-keys/:id/${action}`, {
      schema: {
        tags,
        summary: active ? 'Activate a key (usable again at once)' : "Deactivate a key (refused at once on every node; 400 LAST_ACTIVE_KEY for the caller's own last active key)",
        params: IdParam,
        response: { 200: Type.Ref(ApiKeySchema, { description: 'The key after the change' }), ...errorResponses },
      },
      handler: async (request) => toApiKeyView(await keys.setActive(request.caller, (request.params as Static<typeof IdParam>).id, active)),
    });
  }

  app.delete('/api-keys/:id', {
    schema: {
      tags,
      summary: "Delete a key for good (400 LAST_ACTIVE_KEY for the caller's own last active key)",
      params: IdParam,
      response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses },
    },
    handler: async (request, reply) => {
      await keys.delete(request.caller, (request.params as Static<typeof IdParam>).id);
      return reply.status(204).send();
    },
  });
}
