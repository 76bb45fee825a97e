import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../../helpers/databases.js';
import type { HttpClient, HttpResponse } from '../../helpers/http-client.js';
import { sendMail } from '../../helpers/smtp-client.js';
import { openEventSource } from '../../helpers/sse-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

warnIfPostgresSkipped();

function expectError(response: HttpResponse, statusCode: number, code: string, field?: string): void {
  expect(response.status, response.text).toBe(statusCode);
  expect(response.json()).toMatchObject({ statusCode, code, ...(field === undefined ? {} : { field }) });
}

const ids = (response: HttpResponse): string[] => response.json().data.map((item: { id: string }) => item.id);

describe.each(TEST_DIALECTS)('environments (%s)', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
  });
  afterAll(() => t?.stop());

  it('every account has production; environments are created, listed and deleted', async () => {
    const list = (await t.http.get('/api/v1/environments')).json();
    expect(list.data).toEqual([{ id: t.tenant.environmentId, name: 'Production', slug: 'production', createdAt: expect.any(String) }]);
    const created = await t.http.post('/api/v1/environments', { name: 'QA Europe' });
    expect(created.status, created.text).toBe(201);
    expect(created.json()).toMatchObject({ name: 'QA Europe', slug: 'qa-europe' });
    const { id } = created.json();
    expect(ids(await t.http.get('/api/v1/environments'))).toEqual([t.tenant.environmentId, id]);
    expect((await t.http.delete(`/api/v1/environments/${id}`)).status).toBe(204);
    expect(ids(await t.http.get('/api/v1/environments'))).toEqual([t.tenant.environmentId]);
    expectError(await t.http.delete(`/api/v1/environments/${id}`), 404, 'ENVIRONMENT_NOT_FOUND');
  });

  it('refuses bad input, duplicates, deleting production and deleting an environment in use', async () => {
    expectError(await t.http.post('/api/v1/environments', {}), 400, 'VALIDATION_ERROR', 'name');
    expectError(await t.http.post('/api/v1/environments', { name: 'x', slug: 'Not A Slug' }), 400, 'INVALID_SLUG', 'slug');
    expectError(await t.http.post('/api/v1/environments', { name: '!!!' }), 400, 'INVALID_SLUG', 'name');
    expectError(await t.http.post('/api/v1/environments', { name: 'Prod again', slug: 'production' }), 409, 'ENVIRONMENT_EXISTS');
    expectError(await t.http.delete(`/api/v1/environments/${t.tenant.environmentId}`), 400, 'PRODUCTION_ENVIRONMENT');
    const busy = (await t.http.post('/api/v1/environments', { name: 'Busy' })).json<{ id: string }>();
    const inbox = (await t.http.post('/api/v1/inboxes', { environmentId: busy.id })).json<{ id: string }>();
    expectError(await t.http.delete(`/api/v1/environments/${busy.id}`), 409, 'ENVIRONMENT_IN_USE');
    await t.http.delete(`/api/v1/inboxes/${inbox.id}`);
    expect((await t.http.delete(`/api/v1/environments/${busy.id}`)).status).toBe(204);
  });

  it("another tenant's environment is 404 to delete and invalid to use", async () => {
    const other = await t.createTenant('Other env tenant');
    const theirs = (await t.client(other.apiKey).post('/api/v1/environments', { name: 'Theirs' })).json<{ id: string }>();
    expectError(await t.http.delete(`/api/v1/environments/${theirs.id}`), 404, 'ENVIRONMENT_NOT_FOUND');
    expectError(await t.http.post('/api/v1/inboxes', { environmentId: theirs.id }), 400, 'INVALID_ENVIRONMENT', 'environmentId');
    expectError(await t.http.post('/api/v1/api-keys', { name: 'x', environmentId: theirs.id }), 400, 'INVALID_ENVIRONMENT', 'environmentId');
  });

  describe('an environment-scoped key sees and creates only its environment', () => {
    let staging: string;
    let scoped: HttpClient;
    let scopedKey: string;
    let prod: { inbox: string; email: string };
    let stage: { inbox: string; email: string };

    beforeAll(async () => {
      staging = (await t.http.post('/api/v1/environments', { name: 'Staging' })).json().id;
      const key = (await t.http.post('/api/v1/api-keys', { name: 'staging only', environmentId: staging })).json();
      expect(key.environmentId).toBe(staging);
      scopedKey = key.key;
      scoped = t.client(scopedKey);
      const prodInbox = (await t.http.post('/api/v1/inboxes', {})).json();
      // Created by the scoped key without naming an environment: lands in its own.
      const stageInbox = (await scoped.post('/api/v1/inboxes', {})).json();
      expect(stageInbox.environment.id).toBe(staging);
      const prodMail = await sendMail(t.smtpPort, { from: 'a@example.com', to: prodInbox.address, subject: 'prod', text: 'x' });
      const stageMail = await sendMail(t.smtpPort, { from: 'a@example.com', to: stageInbox.address, subject: 'stage', text: 'x' });
      prod = { inbox: prodInbox.id, email: prodMail.id };
      stage = { inbox: stageInbox.id, email: stageMail.id };
    });

    it('inboxes: only its own listed and readable; creating in another environment is refused', async () => {
      expect(ids(await scoped.get('/api/v1/inboxes'))).toEqual([stage.inbox]);
      expect(ids(await scoped.get(`/api/v1/inboxes?environmentId=${staging}`))).toEqual([stage.inbox]);
      expect(ids(await scoped.get(`/api/v1/inboxes?environmentId=${t.tenant.environmentId}`))).toEqual([]);
      expectError(await scoped.get(`/api/v1/inboxes/${prod.inbox}`), 404, 'INBOX_NOT_FOUND');
      expectError(await scoped.get(`/api/v1/inboxes/${prod.inbox}/messages`), 404, 'INBOX_NOT_FOUND');
      expectError(await scoped.delete(`/api/v1/inboxes/${prod.inbox}`), 404, 'INBOX_NOT_FOUND');
      expectError(await scoped.post('/api/v1/inboxes', { environmentId: t.tenant.environmentId }), 400, 'INVALID_ENVIRONMENT', 'environmentId');
    });

    it('emails: only its own listed and readable; filter.environmentId of another is empty', async () => {
      expect(ids(await scoped.get('/api/v1/emails'))).toEqual([stage.email]);
      expect(ids(await scoped.get(`/api/v1/emails?filter.environmentId=${t.tenant.environmentId}`))).toEqual([]);
      expectError(await scoped.get(`/api/v1/emails/${prod.email}`), 404, 'EMAIL_NOT_FOUND');
      expectError(await scoped.delete(`/api/v1/emails/${prod.email}`), 404, 'EMAIL_NOT_FOUND');
      expect((await scoped.get(`/api/v1/emails/${stage.email}`)).status).toBe(200);
    });

    it('logs: only its own environment', async () => {
      const logs = (await scoped.get('/api/v1/logs?perPage=100')).json().data as Array<{ emailId: string | null; environmentId: string | null }>;
      expect(logs.length).toBeGreaterThan(0);
      expect(logs.every((entry) => entry.environmentId === staging)).toBe(true);
      expect(logs.map((entry) => entry.emailId)).not.toContain(prod.email);
      expect(ids(await scoped.get(`/api/v1/logs?environmentId=${t.tenant.environmentId}`))).toEqual([]);
      expect((await scoped.get(`/api/v1/logs/email/${prod.email}`)).json().data).toEqual([]);
    });

    it('keys and environments: only its own environment; it cannot widen its reach', async () => {
      expect((await scoped.get('/api/v1/environments')).json().data.map((e: { slug: string }) => e.slug)).toEqual(['staging']);
      expectError(await scoped.post('/api/v1/environments', { name: 'Mine' }), 403, 'ENVIRONMENT_KEY_FORBIDDEN');
      expectError(await scoped.delete(`/api/v1/environments/${staging}`), 403, 'ENVIRONMENT_KEY_FORBIDDEN');
      const minted = (await scoped.post('/api/v1/api-keys', { name: 'child' })).json();
      expect(minted.environmentId).toBe(staging);
      expectError(await scoped.post('/api/v1/api-keys', { name: 'escalate', environmentId: t.tenant.environmentId }), 400, 'INVALID_ENVIRONMENT', 'environmentId');
      const listed = (await scoped.get('/api/v1/api-keys?perPage=100')).json().data as Array<{ environmentId: string | null }>;
      expect(listed.every((k) => k.environmentId === staging)).toBe(true);
      const defaultKeyId = (await t.http.get('/api/v1/api-keys?perPage=100')).json().data.find((k: { environmentId: string | null }) => k.environmentId === null).id;
      expectError(await scoped.post(`/api/v1/api-keys/${defaultKeyId}/deactivate`), 404, 'API_KEY_NOT_FOUND');
    });

    it('account-wide settings that reach every environment (webhooks, integrations, inbox hooks) are 403', async () => {
      expectError(await scoped.get('/api/v1/webhooks'), 403, 'ENVIRONMENT_KEY_FORBIDDEN');
      expectError(await scoped.post('/api/v1/webhooks', { url: 'https://example.com/hook', events: ['email.received'] }), 403, 'ENVIRONMENT_KEY_FORBIDDEN');
      expectError(await scoped.get('/api/v1/integrations'), 403, 'ENVIRONMENT_KEY_FORBIDDEN');
      expectError(await scoped.get(`/api/v1/inboxes/${stage.inbox}/hooks`), 403, 'ENVIRONMENT_KEY_FORBIDDEN');
      expect((await t.http.get('/api/v1/webhooks')).status).toBe(200);
    });

    it('custom-domain disable, delete and DNS-provider setup are account-wide: 403, the domain stays', async () => {
      const domain = (await t.http.post('/api/v1/domains', { domain: 'env-scope.example.com' })).json<{ id: string; domain: string }>();
      expectError(await scoped.post(`/api/v1/domains/${domain.id}/disable`), 403, 'ENVIRONMENT_KEY_FORBIDDEN');
      expectError(await scoped.delete(`/api/v1/domains/${domain.id}`), 403, 'ENVIRONMENT_KEY_FORBIDDEN');
      expectError(await scoped.post(`/api/v1/domains/${domain.domain}/setup-dnsprovider`, { provider: 'cloudflare', apiToken: 'x' }), 403, 'ENVIRONMENT_KEY_FORBIDDEN');
      expect((await scoped.get(`/api/v1/domains/${domain.id}`)).status).toBe(200);
      expect((await t.http.delete(`/api/v1/domains/${domain.id}`)).status).toBe(204);
    });

    it('a tenant-level key filters by environment across the API', async () => {
      expect(ids(await t.http.get(`/api/v1/emails?filter.environmentId=${staging}`))).toEqual([stage.email]);
      expect(ids(await t.http.get(`/api/v1/emails?filter.environmentId=${t.tenant.environmentId}`))).toContain(prod.email);
      expect(ids(await t.http.get(`/api/v1/inboxes?environmentId=${staging}`))).toEqual([stage.inbox]);
      const logs = (await t.http.get(`/api/v1/logs?environmentId=${staging}&perPage=100`)).json().data as Array<{ environmentId: string }>;
      expect(logs.length).toBeGreaterThan(0);
      expect(logs.every((entry) => entry.environmentId === staging)).toBe(true);
    });

    it('events: the scoped key streams only its environment', async () => {
      const stream = openEventSource(t, { apiKey: scopedKey });
      try {
        await stream.collector.next((e) => e.type === 'connected');
        await t.http.patch(`/api/v1/emails/${prod.email}/read`);
        await t.http.patch(`/api/v1/emails/${stage.email}/read`);
        const seen = await stream.collector.next((e) => e.type === 'email.updated');
        expect(seen.data.id).toBe(stage.email);
        expect(stream.collector.events.filter((e) => e.type === 'email.updated').map((e) => e.data.id)).not.toContain(prod.email);
      } finally {
        stream.close();
      }
    });
  });
});
