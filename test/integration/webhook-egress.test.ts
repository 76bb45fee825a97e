import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

describe.each(TEST_DIALECTS)('outbound safety with private destinations refused (%s)', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { MAILROOM_ALLOW_PRIVATE_WEBHOOKS: '0' } });
  });
  afterAll(() => t?.stop());

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.1.2.3/hook',
    'http://192.168.1.10/hook',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://0.0.0.0/hook',
    'http://[::127.0.0.1]/hook',
    'http://[::ffff:0:7f00:1]/hook',
    'http://[2002:7f00:1::]/hook',
    'http://[64:ff9b::7f00:1]/hook',
    'http://[64:ff9b::a9fe:a9fe]/latest/meta-data/',
  ])('refuses %s when creating a webhook, an inbox hook or a chat-app integration', async (url) => {
    const webhook = await t.http.post('/api/v1/webhooks', { url });
    expect(webhook.status).toBe(400);
    expect(webhook.json()).toMatchObject({ code: 'INVALID_URL', field: 'url' });
    expect(webhook.json().message).toMatch(/loopback, private, link-local or reserved/);

    const inbox = (await t.http.post('/api/v1/inboxes', {})).json();
    expect((await t.http.post(`/api/v1/inboxes/${inbox.id}/hooks`, { url })).status).toBe(400);
    expect((await t.http.post('/api/v1/integrations', { kind: 'webhook', url })).status).toBe(400);
  });

  it('refuses a private url on update too', async () => {
    const webhook = (await t.http.post('/api/v1/webhooks', { url: 'https://93.184.215.14/hook' })).json();
    const updated = await t.http.put(`/api/v1/webhooks/${webhook.id}`, { url: 'http://127.0.0.1/hook' });
    expect(updated.status).toBe(400);
    expect(updated.json().field).toBe('url');
  });
});
