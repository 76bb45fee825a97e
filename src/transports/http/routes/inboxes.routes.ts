import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { InboxService } from '../../../services/inbox.service.js';
import { errorResponses } from '../schemas/common.js';
import { CreateInboxBody, InboxSchema } from '../schemas/inbox.js';

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
}
