import { createHash, timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NotFoundError, UnauthenticatedError } from '../../../core/errors.js';
import type { Metrics } from '../../../ports/metrics.js';
import type { ReadinessService } from '../../../services/readiness.service.js';
import { ErrorBody } from '../schemas/common.js';

export interface OperationsOptions {
  metrics: Metrics;
  readiness: ReadinessService;
  /** MAILROOM_METRICS_TOKEN; undefined: /metrics answers 404 as if it did not exist. */
  metricsToken: string | undefined;
}

const Health = Type.Object({ status: Type.Literal('ok') });
const Readiness = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('unavailable')]),
    checks: Type.Record(Type.String(), Type.String(), {
      description: 'Per dependency (database, redis, blobs): "ok" or the failure; "shutdown" appears while the node drains',
    }),
  },
  { title: 'Readiness' },
);

const digest = (value: string) => createHash('sha256').update(value).digest();

function bearerMatches(request: FastifyRequest, token: string): boolean {
  const header = request.headers.authorization ?? '';
  const presented = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
  return timingSafeEqual(digest(presented), digest(token));
}

/** Every response's duration, labelled by route pattern (never the raw URL: ids would explode the series). */
function recordRequestDurations(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpRequest(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, reply.elapsedTime / 1000);
  });
}

/**
 * Probes and metrics for operators (docs/operations.md), outside /api/v1: no API key, no rate limit.
 * /healthz says the process is up; /readyz whether it can serve (dependencies answer, not draining).
 */
export function registerOperations(app: FastifyInstance, options: OperationsOptions): void {
  recordRequestDurations(app, options.metrics);
  const tags = ['operations'];
  app.get(
    '/healthz',
    { config: { access: 'public' }, schema: { tags, summary: 'Liveness: the process is up', response: { 200: Health } } },
    async () => ({ status: 'ok' as const }),
  );
  app.get(
    '/readyz',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Readiness: database, Redis (when configured) and blob store answer, and the node is not shutting down',
        response: { 200: Readiness, 503: Readiness },
      },
    },
    async (_request, reply) => {
      const report = await options.readiness.report();
      return reply.code(report.ready ? 200 : 503).send({ status: report.ready ? 'ready' : 'unavailable', checks: report.checks });
    },
  );
  app.get(
    '/metrics',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Prometheus metrics (text exposition format); needs Authorization: Bearer <MAILROOM_METRICS_TOKEN>',
        response: {
          200: Type.String({ description: 'Prometheus text format 0.0.4' }),
          401: Type.Ref(ErrorBody, { description: 'Missing or wrong bearer token' }),
          404: Type.Ref(ErrorBody, { description: 'Metrics are disabled (MAILROOM_METRICS_TOKEN is not set)' }),
        },
      },
    },
    async (request, reply) => {
      const token = options.metricsToken;
      if (token === undefined) throw new NotFoundError('ROUTE_NOT_FOUND', `No route GET ${request.url.split('?')[0]}`);
      if (!bearerMatches(request, token)) throw new UnauthenticatedError('METRICS_TOKEN_INVALID', 'Send Authorization: Bearer <MAILROOM_METRICS_TOKEN>');
      const { contentType, body } = await options.metrics.render();
      return reply.type(contentType).send(body);
    },
  );
}
