import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_LIMITS } from '../../src/core/plans.js';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

const FREE = PLAN_LIMITS.free.maxResources;

describe.each(TEST_DIALECTS)('webhooks, chat-app integrations and inboxes per account, by plan (%s)', (dialect) => {
  let t: TestApp;
  let free: HttpClient;

  const expectPlanLimit = (response: { status: number; json(): { code: string; message: string } }, count: number) => {
    expect(response.status).toBe(403);
    expect(response.json().code).toBe('PLAN_LIMIT_REACHED');
    expect(response.json().message).toContain(`free plan allows ${count}`);
  };

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { MAILROOM_ALLOW_PRIVATE_WEBHOOKS: '1' } });
    free = t.client((await t.createTenant('Free account', 'free')).apiKey);
  });
  afterAll(() => t?.stop());

  it(`refuses webhook number ${FREE.webhooks + 1} on the free plan, by either route, until one is deleted`, async () => {
    const inbox = (await free.post('/api/v1/inboxes', {})).json();
    const ids: string[] = [];
    for (let i = 0; i < FREE.webhooks; i++) {
      const created = i % 2 === 0 ? await free.post('/api/v1/webhooks', { url: `http://127.0.0.1:9/w${i}` }) : await free.post(`/api/v1/inboxes/${inbox.id}/hooks`, { url: `http://127.0.0.1:9/w${i}` });
      expect(created.status).toBe(201);
      ids.push(created.json().id ?? created.json().webhook?.id);
    }
    expectPlanLimit(await free.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/over' }), FREE.webhooks);
    expectPlanLimit(await free.post(`/api/v1/inboxes/${inbox.id}/hooks`, { url: 'http://127.0.0.1:9/over' }), FREE.webhooks);
    // The limit is per account: another account is not affected.
    expect((await t.http.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/pro' })).status).toBe(201);
    expect((await free.delete(`/api/v1/webhooks/${ids[0]}`)).status).toBe(204);
    expect((await free.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/again' })).status).toBe(201);
  });

  it(`refuses chat-app integration number ${FREE.chatappIntegrations + 1} on the free plan`, async () => {
    for (let i = 0; i < FREE.chatappIntegrations; i++) {
      expect((await free.post('/api/v1/integrations', { kind: 'bot', botToken: `tok-${i}`, channelId: `c${i}` })).status).toBe(201);
    }
    expectPlanLimit(await free.post('/api/v1/integrations', { kind: 'webhook', url: 'http://127.0.0.1:9/chat' }), FREE.chatappIntegrations);
  });

  it(`refuses inbox number ${FREE.inboxes + 1} on the free plan`, async () => {
    const held = (await free.get('/api/v1/inboxes')).json().totalItems as number;
    for (let i = held; i < FREE.inboxes; i++) expect((await free.post('/api/v1/inboxes', {})).status).toBe(201);
    expectPlanLimit(await free.post('/api/v1/inboxes', { prefix: 'one-too-many' }), FREE.inboxes);
    expect((await t.http.post('/api/v1/inboxes', {})).status).toBe(201);
  });

  it('shows the limits in GET /usage', async () => {
    expect((await free.get('/api/v1/usage')).json().plan.maxResources).toEqual(FREE);
  });
});
