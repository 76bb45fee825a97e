import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { InboxService } from '../../../services/inbox.service.js';
import { assertInboxAccess } from '../plugins/auth.js';
import { PageOf, errorResponses } from '../schemas/common.js';
import { CreateInboxBody, InboxDetailSchema, InboxIdParams, InboxListQuery, InboxSchema } from '../schemas/inbox.js';

type ListQuery = Static<typeof InboxListQuery>;

/** `?tags=a&tags=b` and `?tags=a,b` mean the same. */
const splitTags = (tags: string[] | undefined) => tags?.flatMap((tag) => tag.split(',')).map((tag) => tag.trim()).filter((tag) => tag.length > 0);

export function registerInboxRoutes(app: FastifyInstance, inboxes: InboxService): void {
  const tags = ['Inboxes'];

  app.post('/inboxes', {
    schema: {
      tags,
      summary: 'Create an inbox',
      body: Type.Optional(CreateInboxBody),
      response: { 201: Type.Ref(InboxSchema), ...errorResponses },
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
        { environmentId: query.environmentId, domainId: query.domainId, tags: splitTags(query.tags), includeExpired: query.includeExpired },
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
