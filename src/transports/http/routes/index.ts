import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../../app.js';
import { registerEmailRoutes } from './emails.routes.js';
import { registerInboxRoutes } from './inboxes.routes.js';
import { registerLogRoutes } from './logs.routes.js';

/** The single registration point for /api/v1 routes. */
export function registerApiRoutes(api: FastifyInstance, services: AppServices): void {
  registerEmailRoutes(api, services.emails);
  registerInboxRoutes(api, services.inboxes);
  registerLogRoutes(api, services.logs);
}
