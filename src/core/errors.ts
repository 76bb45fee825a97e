/**
 * Typed domain errors. Services throw these; each transport maps them once
 * (HTTP: transports/http/plugins/error-handler.ts, SMTP: transports/smtp/smtp-replies.ts).
 * `code` is a stable machine-readable string listed in docs/errors.md.
 */
export abstract class AppError extends Error {
  abstract readonly kind: 'invalid' | 'unauthenticated' | 'forbidden' | 'not_found' | 'conflict' | 'rate_limited' | 'unavailable' | 'upstream';
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class InvalidInputError extends AppError {
  readonly kind = 'invalid' as const;
}
export class UnauthenticatedError extends AppError {
  readonly kind = 'unauthenticated' as const;
}
export class ForbiddenError extends AppError {
  readonly kind = 'forbidden' as const;
}
export class NotFoundError extends AppError {
  readonly kind = 'not_found' as const;
}
export class ConflictError extends AppError {
  readonly kind = 'conflict' as const;
}
export class RateLimitedError extends AppError {
  readonly kind = 'rate_limited' as const;
}
/** Our side cannot do it right now (storage down, quota store unreachable): callers may retry. */
export class UnavailableError extends AppError {
  readonly kind = 'unavailable' as const;
}
/** A service we call on the caller's behalf (a DNS provider's API) failed or throttled us: HTTP 502. */
export class UpstreamError extends AppError {
  readonly kind = 'upstream' as const;
}
