import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { InboxMessageService } from '../../../services/inbox-message.service.js';
import { WAIT_TIMEOUT_MS } from '../../../services/inbox-message.service.js';
import type { InboxMessageRecord } from '../../../adapters/db/repositories/inbox-message.repository.js';
import { assertInboxAccess } from '../plugins/auth.js';
import { MessagePageOf, errorResponses } from '../schemas/common.js';
import { InboxIdParams } from '../schemas/inbox.js';
import { InboxMessageSchema, MessageListQuery, MessageParams, WaitQuery, toInboxMessageView } from '../schemas/inbox-message.js';

export function registerInboxMessageRoutes(app: FastifyInstance, messages: InboxMessageService): void {
  const tags = ['Inbox messages'];
  const config = { access: 'inbox' as const };
  const view = (message: InboxMessageRecord) => toInboxMessageView(message, app.prefix);

  app.get('/inboxes/:inboxId/messages', {
    config,
    schema: {
      tags,
      summary: 'List the messages of an inbox, newest first (with afterId: the ones after it, oldest first)',
      params: InboxIdParams,
      querystring: MessageListQuery,
      response: { 200: MessagePageOf(Type.Ref(InboxMessageSchema), 'InboxMessagePage'), ...errorResponses },
    },
    handler: async (request) => {
      const { inboxId } = request.params as Static<typeof InboxIdParams>;
      const query = request.query as Static<typeof MessageListQuery>;
      assertInboxAccess(request.caller, inboxId);
      const page = await messages.list(request.caller, inboxId, { page: query.page ?? 1, perPage: query.perPage ?? 20, afterId: query.afterId });
      return { ...page, hasMore: page.hasNextPage, data: page.data.map(view) };
    },
  });

  // Registered before /messages/:messageId (find-my-way prefers the static segment anyway).
  app.get('/inboxes/:inboxId/messages/wait', {
    config,
    schema: {
      tags,
      summary: 'Wait for the first matching message (long poll)',
      description:
        'Answers at once with the earliest matching message already stored (after afterId), else with the first one to arrive; 204 with no body when the timeout passes first.',
      params: InboxIdParams,
      querystring: WaitQuery,
      response: { 200: Type.Ref(InboxMessageSchema), 204: Type.Null({ description: 'No matching message arrived before the timeout' }), ...errorResponses },
    },
    handler: async (request, reply) => {
      const { inboxId } = request.params as Static<typeof InboxIdParams>;
      const query = request.query as Static<typeof WaitQuery>;
      assertInboxAccess(request.caller, inboxId);
      const disconnected = new AbortController();
      const onClose = () => disconnected.abort();
      reply.raw.once('close', onClose);
      try {
        const message = await messages.wait(
          request.caller,
          inboxId,
          { timeoutMs: query.timeout ?? WAIT_TIMEOUT_MS.default, subject: query.subject, from: query.from, afterId: query.afterId },
          disconnected.signal,
        );
        if (message === undefined) return reply.status(204).send();
        return view(message);
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  });

  app.get('/inboxes/:inboxId/messages/:messageId', {
    config,
    schema: { tags, summary: 'Get one inbox message', params: MessageParams, response: { 200: Type.Ref(InboxMessageSchema), ...errorResponses } },
    handler: async (request) => {
      const { inboxId, messageId } = request.params as Static<typeof MessageParams>;
      assertInboxAccess(request.caller, inboxId);
      return view(await messages.getOrThrow(request.caller, inboxId, messageId));
    },
  });
}
