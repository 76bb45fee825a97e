import type { FastifyInstance } from 'fastify';
import { ForbiddenError } from '../../../core/errors.js';

/** One year, the value HSTS preload lists expect. */
const HSTS = 'max-age=31536000; includeSubDomains';

/**
 * Headers on every response unless the route set its own: HTTPS only from now on (HSTS), no MIME
 * sniffing, never framed (clickjacking), and no Referer leaking URLs (which may carry an SSE `token`).
 */
const SECURITY_HEADERS = {
  'strict-transport-security': HSTS,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
} as const;

/**
 * Spec 5.9: all requests use HTTPS. The API normally listens with TLS itself. Behind a
 * TLS-terminating proxy (MAILROOM_TRUST_PROXY=1) it listens on plain HTTP, and a request the proxy
 * did not forward as https (X-Forwarded-Proto) is refused with 403 before authentication: a client
 * configured with an http:// address fails loudly at once instead of sending keys in clear text
 * for as long as nobody notices.
 */
export function registerTransportSecurity(app: FastifyInstance, options: { trustProxy: boolean; plainHttp: boolean }): void {
  if (options.trustProxy) {
    app.addHook('onRequest', async (request) => {
      if (request.protocol !== 'https') {
        throw new ForbiddenError('HTTPS_REQUIRED', 'This API is served over HTTPS only; send the request to the https:// address');
      }
    });
  }
  // MAILROOM_HTTP_TLS=off (docs/local.md): no HTTPS to insist on, so no HSTS.
  const headers = Object.entries(SECURITY_HEADERS).filter(([name]) => !options.plainHttp || name !== 'strict-transport-security');
  app.addHook('onSend', async (_request, reply) => {
    // A route that chose its own policy (the dashboard's full CSP, a sandbox for email HTML) keeps it.
    for (const [name, value] of headers) if (!reply.hasHeader(name)) reply.header(name, value);
  });
}
