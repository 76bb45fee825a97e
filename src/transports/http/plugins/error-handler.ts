import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError } from '../../../core/errors.js';

const STATUS_OF: Record<AppError['kind'], number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  unavailable: 503,
};

const REASON: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export interface ErrorBodyShape {
  statusCode: number;
  error: string;
  code: string;
  message: string;
  field?: string;
}

export function errorBody(statusCode: number, code: string, message: string, field?: string): ErrorBodyShape {
  return { statusCode, error: REASON[statusCode] ?? 'Error', code, message, ...(field === undefined ? {} : { field }) };
}

/** "querystring/perPage" or "/perPage" → "perPage"; "body must have required property 'url'" → "url". */
function offendingField(error: FastifyError): string | undefined {
  const first = error.validation?.[0];
  if (first === undefined) return undefined;
  const missing = (first.params as { missingProperty?: string } | undefined)?.missingProperty;
  if (missing !== undefined) return missing;
  const path = first.instancePath.replace(/^\//, '').replace(/\//g, '.');
  return path.length > 0 ? path : undefined;
}

/**
 * The one place errors become HTTP: domain errors by kind, Fastify's validation errors as 400 with
 * the offending field, and anything else as a 500 whose details stay in the log.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) {
      const status = STATUS_OF[error.kind];
      if (status >= 500) request.log.error({ err: error }, error.message);
      return reply.status(status).send(errorBody(status, error.code, error.message, error.details?.field as string | undefined));
    }
    if (error.validation !== undefined) {
      const field = offendingField(error);
      const message = field === undefined ? error.message : `Invalid value for ${field}: ${error.message}`;
      return reply.status(400).send(errorBody(400, 'VALIDATION_ERROR', message, field));
    }
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) {
      request.log.error({ err: error }, 'unhandled error');
      return reply.status(500).send(errorBody(500, 'INTERNAL_ERROR', 'Something went wrong on our side'));
    }
    return reply.status(status).send(errorBody(status, error.code ?? 'BAD_REQUEST', error.message));
  });
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(errorBody(404, 'ROUTE_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`));
  });
}
