import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { AppServices } from '../../app.js';
import type { Logger } from '../../logger.js';
import { registerAuth } from './plugins/auth.js';
import { registerErrorHandler } from './plugins/error-handler.js';
import { registerApiRoutes } from './routes/index.js';
import { ErrorBody } from './schemas/common.js';
import { EmailSchema } from './schemas/email.js';
import { InboxSchema } from './schemas/inbox.js';
import { LogEntrySchema } from './routes/logs.routes.js';

export const API_PREFIX = '/api/v1';
const SHARED_SCHEMAS = [ErrorBody, EmailSchema, InboxSchema, LogEntrySchema];

export interface HttpServerOptions {
  tls: { key: Buffer; cert: Buffer };
  logger: Logger;
  services: AppServices;
  version: string;
}

/** Builds the Fastify instance with every route; it never listens itself (app.ts does). */
export async function buildHttpServer(options: HttpServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    https: { key: options.tls.key, cert: options.tls.cert },
    loggerInstance: options.logger,
    // Per-request info lines would double the log volume of a busy API; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: 'x-request-id',
    genReqId: () => crypto.randomUUID(),
    bodyLimit: 1024 * 1024,
    connectionTimeout: 0,
    keepAliveTimeout: 72_000,
    requestTimeout: 120_000,
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, useDefaults: true } },
    // Our pino instance is wider than FastifyBaseLogger; the routes only need the base instance type.
  }) as unknown as FastifyInstance;

  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  registerErrorHandler(app);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Mailroom API', version: options.version, description: 'Inbound email capture: emails, inboxes, webhooks, realtime events and activity logs.' },
      servers: [{ url: '/' }],
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
      security: [{ apiKey: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: `${API_PREFIX}/docs` });

  await app.register(
    async (api) => {
      registerAuth(api, options.services.auth);
      api.get('/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () => app.swagger());
      registerApiRoutes(api, options.services);
    },
    { prefix: API_PREFIX },
  );
  return app;
}
