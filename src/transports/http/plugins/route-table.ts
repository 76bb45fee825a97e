import type { FastifyInstance, RouteOptions } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route as registered (method, url, config, schema), for the route guardrail test and diagnostics. */
    routeTable: readonly RouteOptions[];
  }
}

/** Must run before any route is registered: onRoute only sees routes added after it. */
export function collectRouteTable(app: FastifyInstance): void {
  const routes: RouteOptions[] = [];
  app.decorate('routeTable', routes);
  app.addHook('onRoute', (route) => {
    routes.push(route);
  });
}

/**
 * Routes that need no API key say so in the OpenAPI document (`security: []`), overriding the
 * document-wide apiKey requirement, so the docs and generated clients match `config.access`.
 */
export function documentPublicRoutes(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.config?.access !== 'public' || route.schema === undefined) return;
    const schema = route.schema as { security?: unknown };
    if (schema.security === undefined) route.schema = { ...route.schema, security: [] } as typeof route.schema;
  });
}
