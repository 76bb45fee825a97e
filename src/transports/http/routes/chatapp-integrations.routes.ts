import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ChatappIntegrationService } from '../../../services/chatapp-integration.service.js';
import { IdParam, PageOf, PageQuery, errorResponses } from '../schemas/common.js';
import { ChatappIntegrationSchema, CreateChatappIntegrationBody, UpdateChatappIntegrationBody } from '../schemas/webhook.js';

/** Chat-app notification integrations (CHATAPP and CHATAPP_BOT log entries). */
export function registerChatappIntegrationRoutes(app: FastifyInstance, integrations: ChatappIntegrationService): void {
  const tags = ['Chat-app integrations'];
  const Integration = Type.Ref(ChatappIntegrationSchema);

  app.post('/integrations', {
    schema: { tags, summary: 'Add a chat-app incoming webhook or bot channel', body: CreateChatappIntegrationBody, response: { 201: Integration, ...errorResponses } },
    handler: async (request, reply) =>
      reply.status(201).send(await integrations.create(request.caller, request.body as Static<typeof CreateChatappIntegrationBody>)),
  });

  app.get('/integrations', {
    schema: { tags, summary: 'List chat-app integrations, newest first', querystring: Type.Object(PageQuery(20, 100)), response: { 200: PageOf(Integration, 'ChatappIntegrationPage'), ...errorResponses } },
    handler: async (request) => {
      const { page = 1, perPage = 20 } = request.query as { page?: number; perPage?: number };
      return integrations.list(request.caller, { page, perPage });
    },
  });

  app.get('/integrations/:id', {
    schema: { tags, summary: 'Get a chat-app integration (credentials masked)', params: IdParam, response: { 200: Integration, ...errorResponses } },
    handler: async (request) => integrations.get(request.caller, (request.params as { id: string }).id),
  });

  app.put('/integrations/:id', {
    schema: { tags, summary: 'Update a chat-app integration', params: IdParam, body: UpdateChatappIntegrationBody, response: { 200: Integration, ...errorResponses } },
    handler: async (request) =>
      integrations.update(request.caller, (request.params as { id: string }).id, request.body as Static<typeof UpdateChatappIntegrationBody>),
  });

  app.delete('/integrations/:id', {
    schema: { tags, summary: 'Delete a chat-app integration and its queued notifications', params: IdParam, response: { 204: Type.Null(), ...errorResponses } },
    handler: async (request, reply) => {
      await integrations.delete(request.caller, (request.params as { id: string }).id);
      return reply.status(204).send();
    },
  });
}
