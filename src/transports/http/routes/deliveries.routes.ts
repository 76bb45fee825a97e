import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { DeliveryService } from '../../../services/delivery.service.js';
import { errorResponses } from '../schemas/common.js';
import { ResendResultSchema } from '../schemas/webhook.js';

export function registerDeliveryRoutes(app: FastifyInstance, deliveries: DeliveryService): void {
  app.post('/logs/:logId/resend', {
    schema: {
      tags: ['Activity log'],
      summary: 'Resend a FAILED webhook or chat-app notification now',
      description: 'Makes one new attempt at once and records it as a new log entry. Other entries (another type, or not FAILED) are 400.',
      params: Type.Object({ logId: Type.String({ minLength: 1, maxLength: 100 }) }),
      response: { 200: ResendResultSchema, ...errorResponses },
    },
    handler: async (request) => deliveries.resend(request.caller, (request.params as { logId: string }).logId),
  });
}
