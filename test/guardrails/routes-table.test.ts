import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Every /api/v1 route must say who may call it and what it answers. A route without an API key
 * (`access: 'public'`) must be on this list, with the reason; everything else needs a key.
 */
const PUBLIC_ROUTES: Record<string, string> = {
  '/api/v1/openapi.json': 'the API description itself',
  '/api/v1/auth/config': 'the dashboard sign-in page asks whether sign-up is open',
  '/api/v1/auth/signup': 'creating a dashboard account: the caller has no key yet',
  '/api/v1/auth/signin': 'dashboard sign-in with email and password',
  '/api/v1/auth/refresh': 'authenticated by the session cookie, not an API key',
  '/api/v1/auth/signout': 'authenticated by the session cookie, not an API key',
  '/api/v1/auth/verify-email': 'authenticated by the emailed single-use token: the account does not exist yet',
  '/api/v1/auth/password-reset': 'the user has forgotten their password: no credential at all',
  '/api/v1/auth/password-reset/confirm': 'authenticated by the emailed single-use token',
};
/** Routes left out of the OpenAPI document, with the reason. */
const HIDDEN_ROUTES: Record<string, string> = {
  '/api/v1/openapi.json': 'the document does not describe itself',
  '/api/v1/mcp': 'GET and DELETE only answer 405 (the stateless MCP endpoint has no sessions or server streams); POST is documented',
};
/** Swagger UI's page and assets (public, outside the API's auth scope): served by the plugin, not part of the API. */
const isDocsAsset = (url: string) => url === '/api/v1/docs' || url.startsWith('/api/v1/docs/');

interface RouteSchema {
  response?: Record<string, unknown>;
  params?: unknown;
  querystring?: unknown;
  body?: unknown;
  hide?: boolean;
}

const apiRoutes = (t: TestApp) =>
  t.app.http.routeTable
    .filter((route) => route.url.startsWith('/api/v1') && !isDocsAsset(route.url))
    .flatMap((route) => (Array.isArray(route.method) ? route.method : [route.method]).map((method) => ({ ...route, method })))
    .filter((route) => route.method !== 'HEAD');

const label = (route: RouteOptions) => `${String(route.method)} ${route.url}`;

function problemsOf(route: RouteOptions): string[] {
  const schema = route.schema as RouteSchema | undefined;
  if (schema?.hide === true) return route.url in HIDDEN_ROUTES ? [] : ['hidden from the OpenAPI document'];
  const problems: string[] = [];
  const statuses = Object.keys(schema?.response ?? {});
  if (!statuses.some((s) => /^2\d\d$/.test(s))) problems.push('no 2xx response schema');
  if (route.config?.access !== 'public') {
    for (const required of ['401', '404']) if (!statuses.includes(required)) problems.push(`no ${required} response schema`);
  }
  if (route.url.includes('/:') && schema?.params === undefined) problems.push('no params schema');
  const validated = schema?.params !== undefined || schema?.querystring !== undefined || schema?.body !== undefined;
  if (validated && !statuses.includes('400')) problems.push('validates input but has no 400 response schema');
  return problems;
}

describe('route table guardrail', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.stop());

  it('finds the routes (the table is collected)', () => {
    expect(apiRoutes(t).map(label)).toEqual(expect.arrayContaining(['GET /api/v1/emails', 'GET /api/v1/logs', 'GET /api/v1/openapi.json']));
  });

  it('has no public route that is not on the allow-list', () => {
    const publicRoutes = apiRoutes(t).filter((route) => route.config?.access === 'public').map((route) => route.url);
    expect(publicRoutes.filter((url) => !(url in PUBLIC_ROUTES))).toEqual([]);
  });

  it('gives every route a response schema with a success status, and error statuses where they can occur', () => {
    const problems = apiRoutes(t).flatMap((route) => problemsOf(route).map((problem) => `${label(route)}: ${problem}`));
    expect(problems).toEqual([]);
  });
});
