import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  security?: unknown[];
}
type OpenApiDocument = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
  security: unknown[];
};

/** Fastify's `/emails/:id` is OpenAPI's `/emails/{id}`. */
const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');

describe('OpenAPI document and docs page', () => {
  let t: TestApp;
  let doc: OpenApiDocument;

  beforeAll(async () => {
    t = await startTestApp();
    const response = await t.http.get('/api/v1/openapi.json', { apiKey: null });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    doc = response.json();
  });
  afterAll(() => t?.stop());

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists every /api/v1 route with a schema for each response', () => {
    const routes = t.app.http.routeTable.filter(
      (route) =>
        route.url.startsWith('/api/v1') &&
        !route.url.startsWith('/api/v1/docs') &&
        route.url !== '/api/v1/openapi.json' &&
        (route.schema as { hide?: boolean } | undefined)?.hide !== true,
    );
    expect(routes.length).toBeGreaterThan(5);
    for (const route of routes) {
      for (const method of [route.method].flat().filter((m) => m !== 'HEAD')) {
        const operation = doc.paths[openApiPath(route.url)]?.[method.toLowerCase()];
        expect(operation, `${method} ${route.url}`).toBeDefined();
        for (const [status, response] of Object.entries(operation?.responses ?? {})) {
          // 204, and 202 (an accepted MCP notification), have no body.
          if (status === '204' || status === '202') continue;
          const schemas = Object.values(response.content ?? {}).map((c) => c.schema);
          expect(schemas.length, `${method} ${route.url} ${status}`).toBeGreaterThan(0);
        }
      }
    }
  });

  it('gives operations unique operationIds (SDK generators name methods after them)', () => {
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => ((op as { operationId?: string }).operationId ?? [])));
    expect(ids).toEqual(expect.arrayContaining(['listEmails', 'getEmail', 'deleteEmail', 'listLogs', 'listEmailLogs']));
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('marks routes without an API key as such, and keyed routes as needing one', () => {
    expect(doc.security).toEqual([{ apiKey: [] }, { sessionToken: [] }]);
    for (const route of t.app.http.routeTable.filter((r) => r.url.startsWith('/api/v1') && !r.url.startsWith('/api/v1/docs'))) {
      for (const method of [route.method].flat().filter((m) => m !== 'HEAD')) {
        const operation = doc.paths[openApiPath(route.url)]?.[method.toLowerCase()];
        if (operation === undefined) continue;
        if (route.config?.access === 'public') expect(operation.security, `${method} ${route.url}`).toEqual([]);
        else expect(operation.security, `${method} ${route.url}`).toBeUndefined();
      }
    }
  });

  it('names the shared schemas as components instead of def-N', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Email', 'Inbox', 'ErrorBody', 'ActivityLogEntry']));
    expect(JSON.stringify(doc)).not.toMatch(/def-\d+/);
    const ok = doc.paths['/api/v1/emails/{id}']?.get?.responses['200']?.content?.['application/json']?.schema;
    expect(ok).toEqual({ $ref: '#/components/schemas/Email' });
  });

  it('documents the list-emails parameters, including the SDK spellings', () => {
    const parameters = (doc.paths['/api/v1/emails']?.get as unknown as { parameters: { name: string }[] }).parameters.map((p) => p.name);
    expect(parameters).toEqual(
      expect.arrayContaining(['page', 'perPage', 'from', 'to', 'subject', 'filter.read', 'filter.environmentId', 'filter.createdAfter', 'filter.createdBefore', 'sort.field', 'sort.order', 'sort[field]', 'sort[order]']),
    );
  });

  it('serves the docs page without a key', async () => {
    const page = await t.http.get('/api/v1/docs', { apiKey: null });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('swagger-ui');
    const asset = await t.http.get('/api/v1/docs/static/swagger-ui-bundle.js', { apiKey: null });
    expect(asset.status).toBe(200);
  });
});
