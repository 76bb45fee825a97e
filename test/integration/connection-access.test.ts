import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpResponse } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

function expectError(response: HttpResponse, statusCode: number, code: string, field?: string): void {
  expect(response.status, response.text).toBe(statusCode);
  expect(response.json()).toMatchObject({ statusCode, code, ...(field === undefined ? {} : { field }) });
}

/**
 * GET /api/v1/connection with bad input. Spec 5: every API request carries a key (401 otherwise); an
 * inbox-scoped key may use it (its user needs the SMTP and IMAP settings too), but only with the api
 * scope: an imap-only key is an IMAP password, not an API key. The route takes no query parameter.
 */
describe('GET /api/v1/connection: keys and query parameters', () => {
  let t: TestApp;
  let inboxId: string;

  const inboxKey = async (scopes: string[]) => (await t.http.post(`/api/v1/inboxes/${inboxId}/api-keys`, { name: scopes.join('+'), scopes })).json().key as string;

  beforeAll(async () => {
    t = await startTestApp();
    inboxId = (await t.http.post('/api/v1/inboxes', { prefix: 'connection' })).json().id;
  });
  afterAll(() => t?.stop());

  it('401 without a key, with an unknown key and with a deactivated one', async () => {
    expectError(await t.http.get('/api/v1/connection', { apiKey: null }), 401, 'API_KEY_MISSING');
    expectError(await t.http.get('/api/v1/connection', { apiKey: 'mr_not-a-real-key' }), 401, 'API_KEY_INVALID');
    const created = (await t.http.post('/api/v1/api-keys', { name: 'soon off' })).json();
    expect((await t.http.post(`/api/v1/api-keys/${created.id}/deactivate`, {})).status).toBe(200);
    expectError(await t.http.get('/api/v1/connection', { apiKey: created.key }), 401, 'API_KEY_INACTIVE');
  });

  it('answers a tenant key and an inbox-scoped key with the api scope; 403 SCOPE_MISSING for an imap-only key', async () => {
    expect((await t.http.get('/api/v1/connection')).status).toBe(200);
    const apiOnly = await t.client(await inboxKey(['api'])).get('/api/v1/connection');
    expect(apiOnly.status, apiOnly.text).toBe(200);
    expect(apiOnly.json()).toMatchObject({ api: { keyHeader: 'x-api-key' } });
    expectError(await t.client(await inboxKey(['imap'])).get('/api/v1/connection'), 403, 'SCOPE_MISSING');
  });

  it('400 naming an unknown query parameter, in every spelling, instead of ignoring it', async () => {
    for (const [query, field] of [
      ['verbose=true', 'verbose'],
      ['host', 'host'],
      ['smtp[port]=25', 'smtp[port]'],
      ['tags[]=a', 'tags[]'],
    ] as const) {
      expectError(await t.http.get(`/api/v1/connection?${query}`), 400, 'VALIDATION_ERROR', field);
    }
  });

  it('authenticates before it looks at the query: no key and an unknown parameter is 401', async () => {
    expectError(await t.http.get('/api/v1/connection?verbose=true', { apiKey: null }), 401, 'API_KEY_MISSING');
  });
});
