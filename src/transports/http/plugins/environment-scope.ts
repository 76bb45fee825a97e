import type { FastifyInstance } from 'fastify';
import { ForbiddenError } from '../../../core/errors.js';

/**
 * Account-wide configuration that an environment-scoped key must not touch, because it reaches
 * beyond one environment: a webhook or chat-app integration receives every environment's mail and
 * inbox hooks re-route those (docs/access.md). Environments, keys and custom storage enforce their
 * own rules in their services.
 */
const ACCOUNT_WIDE_ROUTES = ['/webhooks', '/integrations', '/inboxes/:inboxId/hooks'];

/**
 * Single operations that reach every environment: disabling or deleting a custom domain removes
 * inboxes (and their mail) in all environments, and DNS-provider setup rewrites the account's zone.
 */
const ACCOUNT_WIDE_OPERATIONS = ['POST /domains/:domain/setup-dnsprovider', 'POST /domains/:id/disable', 'DELETE /domains/:id'];

/** Register in the API scope (`prefix`: /api/v1) after registerAuth: hooks run in registration order. */
export function registerEnvironmentScope(api: FastifyInstance, prefix: string): void {
  const routes = ACCOUNT_WIDE_ROUTES.map((path) => prefix + path);
  const operations = new Set(ACCOUNT_WIDE_OPERATIONS.map((operation) => operation.replace(' ', ` ${prefix}`)));
  const isAccountWide = (method: string, url: string): boolean =>
    operations.has(`${method} ${url}`) || routes.some((route) => url === route || url.startsWith(`${route}/`));
  api.addHook('onRequest', async (request) => {
    const url = request.routeOptions.url;
    if (request.caller?.environmentId == null || url === undefined || !isAccountWide(request.method, url)) return;
    throw new ForbiddenError('ENVIRONMENT_KEY_FORBIDDEN', 'An environment-scoped key cannot manage account-wide settings; use a key for all environments');
  });
}
