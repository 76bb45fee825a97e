import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../../services/app-services.js';
import { registerDomainRoutes } from './domains.routes.js';
import { registerEmailRoutes } from './emails.routes.js';
import { registerMessageCheckRoutes } from './message-checks.routes.js';
import { registerEmailBulkRoutes } from './email-bulk.routes.js';
import { registerInboxRoutes } from './inboxes.routes.js';
import { registerInboxKeyRoutes } from './inbox-keys.routes.js';
import { registerInboxMessageRoutes } from './inbox-messages.routes.js';
import { registerLogRoutes } from './logs.routes.js';
import { registerRealtimeRoutes } from './realtime.routes.js';
import { registerWebhookRoutes } from './webhooks.routes.js';
import { registerInboxHookRoutes } from './inbox-hooks.routes.js';
import { registerChatappIntegrationRoutes } from './chatapp-integrations.routes.js';
import { registerDeliveryRoutes } from './deliveries.routes.js';
import { registerApiKeyRoutes } from './api-keys.routes.js';
import { registerEnvironmentRoutes } from './environments.routes.js';
import { registerUsageRoutes } from './usage.routes.js';
import { registerAuthRoutes } from './auth.routes.js';
import { registerAccountPasswordRoutes } from './account-password.routes.js';
import { registerStorageRoutes } from './storage.routes.js';
import { registerConnectionRoutes } from './connection.routes.js';

/** The single registration point for /api/v1 routes. */
export function registerApiRoutes(api: FastifyInstance, services: AppServices): void {
  registerEmailRoutes(api, services.emails);
  registerMessageCheckRoutes(api, services.messageChecks);
  registerEmailBulkRoutes(api, services.emailBulk);
  registerInboxRoutes(api, services.inboxes);
  registerInboxMessageRoutes(api, services.inboxMessages);
  registerInboxKeyRoutes(api, services.inboxKeys);
  registerLogRoutes(api, services.logs);
  registerRealtimeRoutes(api, services.realtime);
  registerDomainRoutes(api, services.domains);
  registerWebhookRoutes(api, services.webhooks);
  registerInboxHookRoutes(api, services.webhooks);
  registerChatappIntegrationRoutes(api, services.chatappIntegrations);
  registerDeliveryRoutes(api, services.deliveries);
  registerApiKeyRoutes(api, services.apiKeys);
  registerEnvironmentRoutes(api, services.environments);
  registerUsageRoutes(api, services.usage);
  registerAuthRoutes(api, services.accounts, services.accountLinks, services.loginFree);
  registerAccountPasswordRoutes(api, services.accounts, services.accountLinks);
  registerStorageRoutes(api, services.storage);
  registerConnectionRoutes(api, services.connection);
}
