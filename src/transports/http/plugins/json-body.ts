import type { FastifyInstance } from 'fastify';

/**
 * Fastify's JSON parser, except that an empty body is "no body" rather than a 400. SDKs commonly send
 * `Content-Type: application/json` on every request, including bodiless PATCH /emails/:id/read and
 * DELETE calls; those must work. Non-empty bodies still go through the default (prototype-poisoning
 * safe) parser, so malformed JSON is still INVALID_JSON.
 */
export function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.length === 0) {
      done(null, undefined);
      return;
    }
    parseJson(request, text, done);
  });
}
