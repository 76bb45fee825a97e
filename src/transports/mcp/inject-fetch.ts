import type { FastifyInstance } from 'fastify';
import { looksLikeJwt } from '../../core/jwt.js';

/** Headers that say who the caller is and how they reached us; the API's own hooks judge them. */
const FORWARDED_HEADERS = ['x-api-key', 'authorization', 'x-forwarded-proto', 'x-forwarded-for'] as const;

/**
 * The caller's credentials for the inner requests. A bearer API key (accepted on the MCP route only)
 * travels on as x-api-key, the header every route reads; a bearer JWT stays a dashboard session.
 */
export function callerHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string') forwarded[name] = value;
  }
  const bearer = /^Bearer\s+(\S+)$/i.exec(forwarded.authorization ?? '')?.[1];
  if (bearer !== undefined && !looksLikeJwt(bearer) && forwarded['x-api-key'] === undefined) {
    delete forwarded.authorization;
    forwarded['x-api-key'] = bearer;
  }
  return forwarded;
}

function responseHeaders(headers: Record<string, string | string[] | number | undefined>): Headers {
  const result = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined) result.append(name, String(item));
  }
  return result;
}

/**
 * A fetch that sends each request through Fastify's inject into this same server, as the MCP caller:
 * the client's own credential header is replaced by the caller's, so authentication, inbox scoping
 * and rate limits are the API routes' own, applied exactly as for a direct request.
 */
export function injectFetch(app: FastifyInstance, caller: Record<string, string>): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      if (name !== 'x-api-key') headers[name] = value;
    });
    const response = await app.inject({
      method: (init?.method ?? 'GET') as 'GET',
      url: `${url.pathname}${url.search}`,
      headers: { ...headers, ...caller },
      ...(typeof init?.body === 'string' ? { payload: init.body } : {}),
    });
    const empty = response.statusCode === 204 || response.statusCode === 304;
    return new Response(empty ? null : new Uint8Array(response.rawPayload), { status: response.statusCode, headers: responseHeaders(response.headers) });
  };
}
