import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/app-services.js';
import type { Logger } from '../../logger.js';
import { registerAuth } from './plugins/auth.js';
import { registerRateLimit, type RateLimitOptions } from './plugins/rate-limit.js';
import { registerTransportSecurity } from './plugins/transport-security.js';
import { registerConnectionLimit } from './plugins/connection-limit.js';
import { registerEnvironmentScope } from './plugins/environment-scope.js';
import { collectRouteTable, documentPublicRoutes } from './plugins/route-table.js';
import { acceptEmptyJsonBodies } from './plugins/json-body.js';
import { registerQueryParams } from './plugins/query-params.js';
import { registerOperations, type OperationsOptions } from './plugins/operations.js';
import { frameworkErrorReply, registerErrorHandler } from './plugins/error-handler.js';
import { registerApiRoutes } from './routes/index.js';
import { registerMcpEndpoint } from '../mcp/http-endpoint.js';
import { registerDashboard } from '../../dashboard/dashboard.routes.js';
import { ErrorBody } from './schemas/common.js';
import { EmailSchema } from './schemas/email.js';
import { InboxSchema } from './schemas/inbox.js';
import { InboxMessageSchema } from './schemas/inbox-message.js';
import { ApiKeySchema } from './schemas/api-key.js';
import { EnvironmentSchema } from './schemas/environment.js';
import { StorageSchema } from './schemas/storage.js';
import { DnsRecordSchema, DomainDetailSchema, DomainSchema } from './schemas/domain.js';
import { LogEntrySchema } from './routes/logs.routes.js';
import { ChatappIntegrationSchema, WebhookSchema } from './schemas/webhook.js';

export const API_PREFIX = '/api/v1';
const SHARED_SCHEMAS = [ErrorBody, EmailSchema, InboxSchema, LogEntrySchema, InboxMessageSchema, ApiKeySchema, DomainSchema, DnsRecordSchema, DomainDetailSchema, WebhookSchema, ChatappIntegrationSchema, EnvironmentSchema, StorageSchema];

export interface HttpServerOptions {
  /** undefined: plain HTTP (MAILROOM_HTTP_TLS=off, or behind a proxy). */
  tls: { key: Buffer; cert: Buffer } | undefined;
  logger: Logger;
  services: AppServices;
  version: string;
  /** Behind a TLS-terminating proxy (MAILROOM_TRUST_PROXY): plain HTTP, X-Forwarded-Proto must be https. */
  trustProxy: boolean;
  /** undefined: no rate limits (MAILROOM_LIMITS=off). */
  rateLimit: RateLimitOptions | undefined;
  /** /healthz, /readyz, /metrics and request-duration metrics (docs/operations.md). */
  operations: OperationsOptions;
  /** docs/security.md: open connections (then 503) and the TLS handshake deadline. */
  limits: { maxConnections: number; handshakeTimeoutMs: number };
}

/** Builds the Fastify instance with every route; it never listens itself (app.ts does). */
export async function buildHttpServer(options: HttpServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.trustProxy ? { trustProxy: true } : {}),
    ...(options.tls === undefined || options.trustProxy ? {} : { https: { key: options.tls.key, cert: options.tls.cert, handshakeTimeout: options.limits.handshakeTimeoutMs } }),
    loggerInstance: options.logger,
    // Per-request info lines would double the log volume of a busy API; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: 'x-request-id',
    genReqId: () => crypto.randomUUID(),
    bodyLimit: 1024 * 1024,
    // Above every path parameter's schema maxLength (domain names: 300), so an overlong id gets the
    // schema's 400 naming it. Fastify's default of 100 answered 404 ROUTE_NOT_FOUND or 414 instead,
    // and a domain name of 101 to 253 characters could not be verified at all.
    routerOptions: { maxParamLength: 1000 },
    connectionTimeout: 0,
    keepAliveTimeout: 72_000,
    requestTimeout: 120_000,
    frameworkErrors: frameworkErrorReply,
    // Bodies are taken as sent (a string is not an array of one); query strings are converted
    // explicitly, per declared type, by plugins/query-params.ts.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: true } },
    // Our pino instance is wider than FastifyBaseLogger; the routes only need the base instance type.
  }) as unknown as FastifyInstance;

  collectRouteTable(app);
  documentPublicRoutes(app);
  acceptEmptyJsonBodies(app);
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  registerErrorHandler(app);
  registerTransportSecurity(app, { trustProxy: options.trustProxy, plainHttp: options.tls === undefined && !options.trustProxy });
  registerConnectionLimit(app, { maxConnections: options.limits.maxConnections, secure: !options.trustProxy && options.tls !== undefined });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Mailroom API', version: options.version, description: 'Inbound email capture: emails, inboxes, webhooks, realtime events and activity logs.' },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          // A dashboard session token (docs/dashboard.md) works wherever a tenant-level key does.
          sessionToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        },
      },
      security: [{ apiKey: [] }, { sessionToken: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: `${API_PREFIX}/docs` });
  registerOperations(app, options.operations);

  await app.register(
    async (api) => {
      registerAuth(api, options.services.auth, options.services.accounts);
      registerEnvironmentScope(api, API_PREFIX);
      registerQueryParams(api);
      if (options.rateLimit !== undefined) await registerRateLimit(api, options.rateLimit);
      api.get('/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () => app.swagger());
      registerApiRoutes(api, options.services);
      registerMcpEndpoint(api, options.version);
    },
    { prefix: API_PREFIX },
  );
  await registerDashboard(app);
  return app;
}
