import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { InboxService } from '../../../services/inbox.service.js';
import { assertInboxAccess } from '../plugins/auth.js';
import { ErrorBody, PageOf, errorResponses } from '../schemas/common.js';
import { CreateInboxBody, InboxDetailSchema, InboxIdParams, InboxListQuery, InboxSchema, UpdateInboxBody } from '../schemas/inbox.js';

type ListQuery = Static<typeof InboxListQuery>;

export function registerInboxRoutes(app: FastifyInstance, inboxes: InboxService): void {
  const tags = ['Inboxes'];

  app.post('/inboxes', {
    schema: {
      tags,
      summary: 'Create an inbox',
      body: Type.Optional(CreateInboxBody),
      response: { 201: Type.Ref(InboxSchema), 409: Type.Ref(ErrorBody, { description: 'An alias is already the address or an alias of an inbox' }), ...errorResponses },
    },
    handler: async (request, reply) => {
      const inbox = await inboxes.create(request.caller, (request.body ?? {}) as Static<typeof CreateInboxBody>);
      return reply.status(201).send(inbox);
    },
  });

  app.get('/inboxes', {
    config: { access: 'inbox' },
    schema: {
      tags,
      summary: 'List inboxes (an inbox-scoped key sees only its own)',
      querystring: InboxListQuery,
      response: { 200: PageOf(Type.Ref(InboxSchema), 'InboxPage'), ...errorResponses },
    },
    handler: async (request) => {
      const query = request.query as ListQuery;
      return inboxes.list(
        request.caller,
        { environmentId: query.environmentId, domainId: query.domainId, tags: query.tags, includeExpired: query.includeExpired },
        { page: query.page ?? 1, perPage: query.perPage ?? 20 },
      );
    },
  });

  app.get('/inboxes/:inboxId', {
    config: { access: 'inbox' },
    schema: { tags, summary: 'Get an inbox with its stats', params: InboxIdParams, response: { 200: InboxDetailSchema, ...errorResponses } },
    handler: async (request) => {
      const { inboxId } = request.params as Static<typeof InboxIdParams>;
      assertInboxAccess(request.caller, inboxId);
      return inboxes.getDetailOrThrow(request.caller, inboxId);
    },
  });

  app.patch('/inboxes/:inboxId', {
    schema: {
      tags,
      summary: "Change an inbox's aliases, tags or active flag (tenant-level key)",
      params: InboxIdParams,
      body: UpdateInboxBody,
      response: { 200: Type.Ref(InboxSchema), 409: Type.Ref(ErrorBody, { description: 'An alias is already the address or an alias of an inbox' }), ...errorResponses },
    },
    handler: async (request) => {
      const { inboxId } = request.params as Static<typeof InboxIdParams>;
      return inboxes.update(request.caller, inboxId, request.body as Static<typeof UpdateInboxBody>);
    },
  });

  app.delete('/inboxes/:inboxId', {
    schema: {
      tags,
      summary: 'Delete an inbox with its messages, their emails and files (tenant-level key)',
      params: InboxIdParams,
      response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses },
    },
    handler: async (request, reply) => {
      await inboxes.delete(request.caller, (request.params as Static<typeof InboxIdParams>).inboxId);
      return reply.status(204).send();
    },
  });
}
