import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { InvalidInputError } from '../../../core/errors.js';
import { LOG_STATUSES, type LogStatus } from '../../../core/vocab.js';
import type { WebhookService } from '../../../services/webhook.service.js';
import { IdParam, PageOf, PageQuery, errorResponses } from '../schemas/common.js';
import { CreateWebhookBody, UpdateWebhookBody, WebhookSchema } from '../schemas/webhook.js';
import { LogEntrySchema, toLogView } from './logs.routes.js';

const LogsQuery = Type.Object({
  ...PageQuery(20, 100),
  status: Type.Optional(
    Type.Union([...LOG_STATUSES.map((s) => Type.Literal(s.toLowerCase())), ...LOG_STATUSES.map((s) => Type.Literal(s))], {
      description: 'success, failed or pending (any case)',
    }),
  ),
});

/** `enabled` is the hosted service's spelling of `active`; both at once must agree. */
function withActive<T extends { active?: boolean; enabled?: boolean }>(body: T): Omit<T, 'enabled'> {
  const { enabled, ...rest } = body;
  if (enabled === undefined) return rest;
  if (rest.active !== undefined && rest.active !== enabled) throw new InvalidInputError('CONFLICTING_FIELDS', 'active and enabled disagree; give one of them', { field: 'enabled' });
  return { ...rest, active: enabled };
}

export function registerWebhookRoutes(app: FastifyInstance, webhooks: WebhookService): void {
  const tags = ['Webhooks'];
  const Webhook = Type.Ref(WebhookSchema);

  app.post('/webhooks', {
    schema: {
      tags,
      summary: 'Create a webhook (and with inboxId link it to that inbox); the response shows its signing secret once',
      body: CreateWebhookBody,
      response: { 201: Webhook, ...errorResponses },
    },
    handler: async (request, reply) => reply.status(201).send(await webhooks.create(request.caller, withActive(request.body as Static<typeof CreateWebhookBody>))),
  });

  app.get('/webhooks', {
    schema: { tags, summary: "List the account's webhooks, newest first", querystring: Type.Object(PageQuery(20, 100)), response: { 200: PageOf(Webhook, 'WebhookPage'), ...errorResponses } },
    handler: async (request) => {
      const { page = 1, perPage = 20 } = request.query as { page?: number; perPage?: number };
      return webhooks.list(request.caller, { page, perPage });
    },
  });

  app.get('/webhooks/:id', {
    schema: { tags, summary: 'Get a webhook (secret masked)', params: IdParam, response: { 200: Webhook, ...errorResponses } },
    handler: async (request) => webhooks.get(request.caller, (request.params as { id: string }).id),
  });

  for (const method of ['put', 'patch'] as const) {
    app[method]('/webhooks/:id', {
      schema: {
        tags,
        summary: 'Update url, events, description, active (or enabled) or secret; fields left out keep their value',
        params: IdParam,
        body: UpdateWebhookBody,
        response: { 200: Webhook, ...errorResponses },
      },
      handler: async (request) => webhooks.update(request.caller, (request.params as { id: string }).id, withActive(request.body as Static<typeof UpdateWebhookBody>)),
    });
  }

  app.delete('/webhooks/:id', {
    schema: { tags, summary: 'Delete a webhook, its inbox links and queued deliveries (log entries stay)', params: IdParam, response: { 204: Type.Null(), ...errorResponses } },
    handler: async (request, reply) => {
      await webhooks.delete(request.caller, (request.params as { id: string }).id);
      return reply.status(204).send();
    },
  });

  app.post('/webhooks/:id/rotate-secret', {
    schema: { tags, summary: 'Replace the signing secret; the response shows the new one once', params: IdParam, response: { 200: Webhook, ...errorResponses } },
    handler: async (request) => webhooks.rotateSecret(request.caller, (request.params as { id: string }).id),
  });

  app.get('/webhooks/:id/logs', {
    schema: {
      tags,
      summary: "The webhook's delivery attempts (WEBHOOK log entries), newest first",
      params: IdParam,
      querystring: LogsQuery,
      response: { 200: PageOf(Type.Ref(LogEntrySchema), 'WebhookLogPage'), ...errorResponses },
    },
    handler: async (request) => {
      const { page = 1, perPage = 20, status } = request.query as Static<typeof LogsQuery>;
      const result = await webhooks.logs(request.caller, (request.params as { id: string }).id, status?.toUpperCase() as LogStatus | undefined, { page, perPage });
      return { ...result, data: result.data.map(toLogView) };
    },
  });
}
