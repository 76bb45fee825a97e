import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller } from '../../../core/api-key.js';
import { ForbiddenError } from '../../../core/errors.js';
import { looksLikeJwt } from '../../../core/jwt.js';
import type { AuthService } from '../../../services/auth.service.js';

/**
 * Who may call a route: `public` (no key), `tenant` (tenant-level keys only: every management
 * route, the default), or `inbox` (inbox-scoped keys too; the handler checks the inbox binding).
 */
export type Access = 'public' | 'tenant' | 'inbox';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    /** Accept the key in the `token` query parameter (clients that cannot set headers, e.g. EventSource). */
    queryToken?: boolean;
    /** Also accept an API key as `Authorization: Bearer <key>` (MCP clients send keys that way); a JWT there stays a session. */
    bearerKey?: boolean;
  }
  interface FastifyRequest {
    caller: Caller;
  }
}

const bearerOf = (request: FastifyRequest): string | undefined => /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];

/** On bearerKey routes, a bearer value without a JWT's shape is an API key. */
function bearerApiKey(request: FastifyRequest): string | undefined {
  const bearer = request.routeOptions.config.bearerKey === true ? bearerOf(request) : undefined;
  return bearer !== undefined && !looksLikeJwt(bearer) ? bearer : undefined;
}

function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header.length > 0) return header;
  const bearerKey = bearerApiKey(request);
  if (bearerKey !== undefined) return bearerKey;
  if (request.routeOptions.config.queryToken === true) {
    const token = (request.query as { token?: unknown } | undefined)?.token;
    if (typeof token === 'string') return token;
  }
  return undefined;
}

/**
 * A dashboard session JWT (docs/dashboard.md): `Authorization: Bearer <jwt>`, or on queryToken
 * routes a `token` that has a JWT's shape (API keys never contain a dot). An x-api-key header wins.
 */
function presentedSessionToken(request: FastifyRequest): string | undefined {
  if (typeof request.headers['x-api-key'] === 'string' && request.headers['x-api-key'].length > 0) return undefined;
  const bearer = bearerOf(request);
  if (bearer !== undefined) return bearerApiKey(request) === undefined ? bearer : undefined;
  const key = presentedKey(request);
  return key !== undefined && looksLikeJwt(key) ? key : undefined;
}

export interface SessionVerifier {
  authenticate(token: string): Caller;
}

export function registerAuth(app: FastifyInstance, auth: AuthService, sessions?: SessionVerifier): void {
  app.decorateRequest('caller', null as unknown as Caller);
  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config.access ?? 'tenant';
    if (access === 'public' || request.routeOptions.url === undefined) return;
    const sessionToken = sessions === undefined ? undefined : presentedSessionToken(request);
    const caller = sessionToken !== undefined && sessions !== undefined ? sessions.authenticate(sessionToken) : await auth.authenticate(presentedKey(request));
    if (!caller.scopes.includes('api')) throw new ForbiddenError('SCOPE_MISSING', 'This key does not have the api scope');
    if (caller.inboxId !== null && access === 'tenant') {
      throw new ForbiddenError('INBOX_KEY_FORBIDDEN', 'An inbox-scoped key cannot use this route; use a tenant-level key');
    }
    request.caller = caller;
  });
}

/** For `inbox` routes: an inbox-scoped key may only touch its own inbox (spec 5.4: 403 otherwise). */
export function assertInboxAccess(caller: Caller, inboxId: string): void {
  if (caller.inboxId !== null && caller.inboxId !== inboxId) {
    throw new ForbiddenError('INBOX_KEY_FORBIDDEN', 'This key is bound to another inbox');
  }
}
