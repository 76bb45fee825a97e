import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../core/errors.js';
import { describeValidationError } from './validation-error.js';

const STATUS_OF: Record<AppError['kind'], number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  unavailable: 503,
  upstream: 502,
};

const REASON: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** Fastify's own request errors, renamed to stable codes (docs/errors.md) so clients never see FST_* names. */
const FRAMEWORK_CODES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_ERR_BAD_URL: 'BAD_URL',
  FST_ERR_MAX_PARAM_LENGTH: 'URL_TOO_LONG',
  FST_ERR_ASYNC_CONSTRAINT: 'BAD_REQUEST',
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

/** Fastify's `frameworkErrors` option: errors raised before routing (a malformed URL) get the same body. */
export function frameworkErrorReply(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode ?? 400;
  reply.status(status).send(errorBody(status, FRAMEWORK_CODES[error.code] ?? 'BAD_REQUEST', error.message));
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
      const problem = describeValidationError(error.validation);
      // A body that is not an object at all (`"x"`, `[]`) is named as a whole: `body`.
      const part = error.validationContext;
      const field = problem.field ?? part;
      const message = problem.field === undefined && part !== undefined ? problem.message.replace(/^request /, `${part} `) : problem.message;
      return reply.status(400).send(errorBody(400, 'VALIDATION_ERROR', message, field));
    }
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) {
      request.log.error({ err: error }, 'unhandled error');
      return reply.status(500).send(errorBody(500, 'INTERNAL_ERROR', 'Something went wrong on our side'));
    }
    return reply.status(status).send(errorBody(status, FRAMEWORK_CODES[error.code] ?? 'BAD_REQUEST', error.message));
  });
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(errorBody(404, 'ROUTE_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`));
  });
}
