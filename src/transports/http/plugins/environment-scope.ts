import type { FastifyInstance } from 'fastify';
import { ForbiddenError } from '../../../core/errors.js';

/**
 * Account-wide configuration that an environment-scoped key must not touch, because it reaches
 * beyond one environment: a webhook or chat-app integration receives every environment's mail and
 * inbox hooks re-route those (docs/access.md). Environments, keys and custom storage enforce their
 * own rules in their services.
 */
const ACCOUNT_WIDE_ROUTES = ['/webhooks', '/integrations', '/inboxes/:inboxId/hooks'];

/** Register in the API scope (`prefix`: /api/v1) after registerAuth: hooks run in registration order. */
export function registerEnvironmentScope(api: FastifyInstance, prefix: string): void {
  const routes = ACCOUNT_WIDE_ROUTES.map((path) => prefix + path);
  const isAccountWide = (url: string): boolean => routes.some((route) => url === route || url.startsWith(`${route}/`));
  api.addHook('onRequest', async (request) => {
    const url = request.routeOptions.url;
    if (request.caller?.environmentId == null || url === undefined || !isAccountWide(url)) return;
    throw new ForbiddenError('ENVIRONMENT_KEY_FORBIDDEN', 'An environment-scoped key cannot manage account-wide settings; use a key for all environments');
  });
}
