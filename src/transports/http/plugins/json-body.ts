import type { FastifyInstance } from 'fastify';

/**
 * Fastify's JSON parser, except that an empty body is "no body" rather than a 400, and no body is an
 * empty object for routes that take one. SDKs commonly send
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
  // No body at all means "no fields": routes whose body fields are all optional (POST /inboxes, spec
  // 4.3) then work without one, and routes with required fields name the missing field instead of
  // answering "body must be object".
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && request.routeOptions.schema?.body !== undefined) request.body = {};
  });
}
