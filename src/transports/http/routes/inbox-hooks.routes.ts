import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { WebhookService } from '../../../services/webhook.service.js';
import { PageOf, PageQuery, errorResponses } from '../schemas/common.js';
import { InboxHookBody, InboxHookLinkSchema, WebhookSchema } from '../schemas/webhook.js';

const InboxParams = Type.Object({ inboxId: Type.String({ minLength: 1, maxLength: 100 }) });
const HookParams = Type.Object({ inboxId: Type.String({ minLength: 1, maxLength: 100 }), webhookId: Type.String({ minLength: 1, maxLength: 100 }) });

/** Inbox hooks: webhooks linked to an inbox fire for every email arriving in it. Tenant-level keys only. */
export function registerInboxHookRoutes(app: FastifyInstance, webhooks: WebhookService): void {
  const tags = ['Inboxes', 'Webhooks'];

  app.get('/inboxes/:inboxId/hooks', {
    schema: {
      tags,
      summary: 'Webhooks linked to the inbox',
      params: InboxParams,
      querystring: Type.Object(PageQuery(20, 100)),
      response: { 200: PageOf(Type.Ref(WebhookSchema), 'InboxHookPage'), ...errorResponses },
    },
    handler: async (request) => {
      const { page = 1, perPage = 20 } = request.query as { page?: number; perPage?: number };
      return webhooks.listForInbox(request.caller, (request.params as { inboxId: string }).inboxId, { page, perPage });
    },
  });

  app.post('/inboxes/:inboxId/hooks', {
    schema: {
      tags,
      summary: 'Link a webhook (webhookId) or create and link one (url); linking again is idempotent',
      description: '201 when this call created the webhook or the link; 200 when the webhook was already linked.',
      params: InboxParams,
      body: InboxHookBody,
      response: { 200: InboxHookLinkSchema, 201: InboxHookLinkSchema, ...errorResponses },
    },
    handler: async (request, reply) => {
      const { inboxId } = request.params as { inboxId: string };
      const result = await webhooks.linkToInbox(request.caller, inboxId, request.body as Static<typeof InboxHookBody>);
      return reply.status(result.linked ? 201 : 200).send(result);
    },
  });

  app.delete('/inboxes/:inboxId/hooks/:webhookId', {
    schema: {
      tags,
      summary: 'Unlink a webhook from the inbox (the webhook itself stays)',
      description: 'A webhook left with no linked inbox fires for every email of the account.',
      params: HookParams,
      response: { 204: Type.Null(), ...errorResponses },
    },
    handler: async (request, reply) => {
      const { inboxId, webhookId } = request.params as { inboxId: string; webhookId: string };
      await webhooks.unlinkFromInbox(request.caller, inboxId, webhookId);
      return reply.status(204).send();
    },
  });
}
