import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Where `npm run build:web` (vite) writes the single-page app; the same path from src/ and dist/. */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));

/**
 * The dashboard only loads its own scripts and styles and talks only to this origin. Emails are shown
 * in `sandbox=""` iframes whose srcdoc inherits this policy, so they can never run scripts either;
 * img-src allows http(s) only because the reader may choose to load an email's remote images.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: cid: https: http:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self' blob: about:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function securityHeaders(reply: FastifyReply): void {
  reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('x-frame-options', 'DENY');
}

const NOT_BUILT = '<!doctype html><meta charset="utf-8"><title>Mailroom</title><p>The dashboard has not been built. Run <code>npm run build:web</code> and restart. The API is at <a href="/api/v1/docs">/api/v1/docs</a>.</p>';

/**
 * Serves the built SPA at `/` (outside /api/v1): hashed files under /assets/ (cached for a year),
 * and index.html for every other GET path so that client-side routes survive a reload.
 */
export async function registerDashboard(app: FastifyInstance, root: string = WEB_DIST): Promise<void> {
  const indexPath = join(root, 'index.html');
  const indexHtml = existsSync(indexPath) ? readFileSync(indexPath) : undefined;
  await app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply) => securityHeaders(reply));
    if (indexHtml !== undefined) {
      await scope.register(fastifyStatic, { root: join(root, 'assets'), prefix: '/assets/', decorateReply: false, immutable: true, maxAge: '365d', index: false });
    }
    scope.get('/*', { schema: { hide: true } }, async (request, reply) => {
      if (request.url.startsWith('/api/')) return reply.callNotFound();
      reply.header('cache-control', 'no-cache');
      if (indexHtml === undefined) return reply.status(503).type('text/html; charset=utf-8').send(NOT_BUILT);
      return reply.type('text/html; charset=utf-8').send(indexHtml);
    });
  });
}
