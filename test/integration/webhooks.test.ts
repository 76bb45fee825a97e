import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../helpers/webhook-receiver.js';

warnIfPostgresSkipped();

interface LogEntry {
  id: string;
  type: string;
  status: string;
  message: string;
  emailId: string | null;
  metadata: Record<string, unknown>;
}

/** What a customer's receiver does: recompute the HMAC over the raw body and compare in constant time. */
function signatureValid(request: ReceivedRequest, secret: string): boolean {
  const expected = Buffer.from(createHmac('sha256', secret).update(request.body).digest('hex'));
  const given = Buffer.from(String(request.headers['x-webhook-signature']));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const DELIVERY_ENV = {
  MAILROOM_ALLOW_PRIVATE_WEBHOOKS: '1',
  MAILROOM_WEBHOOK_RETRY_SCHEDULE: '30,60',
  MAILROOM_WEBHOOK_POLL_INTERVAL_MS: '20',
  MAILROOM_WEBHOOK_TIMEOUT_MS: '1500',
};

describe.each(TEST_DIALECTS)('webhooks (%s)', (dialect) => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  const webhookLogs = async (emailId: string, webhookId: string, count: number): Promise<LogEntry[]> =>
    eventually(async () => {
      const response = await t.http.get(`/api/v1/logs/email/${emailId}`);
      const entries = (response.json().data as LogEntry[]).filter((e) => e.type === 'WEBHOOK' && e.metadata.webhookId === webhookId);
      return entries.length >= count ? entries.reverse() : undefined;
    }, `${count} WEBHOOK entries for ${emailId}`);

  const newInbox = async (prefix: string) => {
    const response = await t.http.post('/api/v1/inboxes', { prefix });
    expect(response.status).toBe(201);
    return response.json() as { id: string; address: string };
  };

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: DELIVERY_ENV });
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
  });

  describe('management', () => {
    it('creates a webhook with defaults and shows the secret in full only once', async () => {
      const created = await t.http.post('/api/v1/webhooks', { url: `${receiver.origin}/crud`, description: 'CRM' });
      expect(created.status).toBe(201);
      const webhook = created.json();
      expect(webhook).toMatchObject({ url: `${receiver.origin}/crud`, events: ['email.received'], description: 'CRM', active: true, inboxIds: [] });
      expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43,}$/);

      const read = await t.http.get(`/api/v1/webhooks/${webhook.id}`);
      expect(read.status).toBe(200);
      expect(read.json().secret).toBe(`whsec_…${webhook.secret.slice(-4)}`);

      const list = await t.http.get('/api/v1/webhooks?perPage=100');
      expect(list.json()).toMatchObject({ currentPage: 1, perPage: 100, hasNextPage: false });
      const listed = list.json().data.find((w: { id: string }) => w.id === webhook.id);
      expect(listed.secret).not.toBe(webhook.secret);

      const rotated = await t.http.post(`/api/v1/webhooks/${webhook.id}/rotate-secret`);
      expect(rotated.status).toBe(200);
      expect(rotated.json().secret).toMatch(/^whsec_/);
      expect(rotated.json().secret).not.toBe(webhook.secret);
    });

    it('updates url, events, description and active', async () => {
      const webhook = (await t.http.post('/api/v1/webhooks', { url: `${receiver.origin}/a` })).json();
      const updated = await t.http.put(`/api/v1/webhooks/${webhook.id}`, { url: `${receiver.origin}/b`, events: ['email.received'], description: 'new', active: false });
      expect(updated.status).toBe(200);
      expect(updated.json()).toMatchObject({ url: `${receiver.origin}/b`, description: 'new', active: false });
      const partial = await t.http.put(`/api/v1/webhooks/${webhook.id}`, { active: true });
      expect(partial.json()).toMatchObject({ url: `${receiver.origin}/b`, description: 'new', active: true });
      expect((await t.http.delete(`/api/v1/webhooks/${webhook.id}`)).status).toBe(204);
      expect((await t.http.get(`/api/v1/webhooks/${webhook.id}`)).status).toBe(404);
      expect((await t.http.delete(`/api/v1/webhooks/${webhook.id}`)).status).toBe(404);
    });

    it.each([
      [{}, 'url'],
      [{ url: 'ftp://example.com/hook' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'https://example.com/hook', events: ['email.sent'] }, 'events'],
      [{ url: 'https://example.com/hook', events: [] }, 'events'],
      [{ url: 'https://example.com/hook', extra: 1 }, undefined],
    ])('rejects %j with 400 naming the field', async (body, field) => {
      const response = await t.http.post('/api/v1/webhooks', body);
      expect(response.status).toBe(400);
      if (field !== undefined) expect(response.json().field).toBe(field);
    });

    it("keeps another tenant's webhooks out (404)", async () => {
      const webhook = (await t.http.post('/api/v1/webhooks', { url: `${receiver.origin}/private` })).json();
      const other = t.client((await t.createTenant('Other')).apiKey);
      expect((await other.get(`/api/v1/webhooks/${webhook.id}`)).status).toBe(404);
      expect((await other.put(`/api/v1/webhooks/${webhook.id}`, { active: false })).status).toBe(404);
      expect((await other.delete(`/api/v1/webhooks/${webhook.id}`)).status).toBe(404);
      expect((await other.get(`/api/v1/webhooks/${webhook.id}/logs`)).status).toBe(404);
      expect((await other.get('/api/v1/webhooks')).json().totalItems).toBe(0);
    });
  });

  describe('inbox hooks', () => {
    it('links by url (create-and-link) and by webhookId, idempotently, and unlinks', async () => {
      const inbox = await newInbox('hooks-crud');
      const byUrl = await t.http.post(`/api/v1/inboxes/${inbox.id}/hooks`, { url: `${receiver.origin}/inbox-hook` });
      expect(byUrl.status).toBe(201);
      expect(byUrl.json()).toMatchObject({ created: true, linked: true, webhook: { inboxIds: [inbox.id], url: `${receiver.origin}/inbox-hook` } });
      expect(byUrl.json().webhook.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43,}$/);

      const again = await t.http.post(`/api/v1/inboxes/${inbox.id}/hooks`, { url: `${receiver.origin}/inbox-hook` });
      expect(again.status).toBe(200);
      expect(again.json()).toMatchObject({ created: false, linked: false, webhook: { id: byUrl.json().webhook.id } });

      const existing = (await t.http.post('/api/v1/webhooks', { url: `${receiver.origin}/existing` })).json();
      const linked = await t.http.post(`/api/v1/inboxes/${inbox.id}/hooks`, { webhookId: existing.id });
      expect(linked.status).toBe(201);
      expect(linked.json()).toMatchObject({ created: false, linked: true, webhook: { id: existing.id, inboxIds: [inbox.id] } });
      expect((await t.http.post(`/api/v1/inboxes/${inbox.id}/hooks`, { webhookId: existing.id })).status).toBe(200);

      const list = await t.http.get(`/api/v1/inboxes/${inbox.id}/hooks`);
      expect(list.json().data.map((w: { id: string }) => w.id).sort()).toEqual([byUrl.json().webhook.id, existing.id].sort());

      expect((await t.http.delete(`/api/v1/inboxes/${inbox.id}/hooks/${existing.id}`)).status).toBe(204);
      expect((await t.http.delete(`/api/v1/inboxes/${inbox.id}/hooks/${existing.id}`)).status).toBe(404);
      expect((await t.http.get(`/api/v1/webhooks/${existing.id}`)).json().inboxIds).toEqual([]);
    });

    it('rejects bad bodies, unknown inboxes and inbox-scoped keys', async () => {
      const inbox = await newInbox('hooks-bad');
      expect((await t.http.post(`/api/v1/inboxes/${inbox.id}/hooks`, {})).status).toBe(400);
      const unknownWebhook = await t.http.post(`/api/v1/inboxes/${inbox.id}/hooks`, { webhookId: '00000000-0000-4000-8000-000000000000' });
      expect(unknownWebhook.status).toBe(400);
      expect(unknownWebhook.json().field).toBe('webhookId');
      expect((await t.http.get('/api/v1/inboxes/00000000-0000-4000-8000-000000000000/hooks')).status).toBe(404);

      const key = await t.http.post(`/api/v1/inboxes/${inbox.id}/api-keys`, { name: 'scoped', scopes: ['api'] });
      expect(key.status).toBe(201);
      const scoped = t.client(key.json().key);
      expect((await scoped.get(`/api/v1/inboxes/${inbox.id}/hooks`)).status).toBe(403);
      expect((await scoped.post(`/api/v1/inboxes/${inbox.id}/hooks`, { url: `${receiver.origin}/x` })).status).toBe(403);
      expect((await scoped.post('/api/v1/webhooks', { url: `${receiver.origin}/x` })).status).toBe(403);
    });
  });

  describe('delivery', () => {
    it('delivers the spec 2.9 payload, signed, to the inbox hook and to tenant-wide webhooks only', async () => {
      const inbox = await newInbox('deliver-me');
      const otherInbox = await newInbox('not-me');
      const linked = (await t.http.post(`/api/v1/inboxes/${inbox.id}/hooks`, { url: `${receiver.origin}/linked` })).json().webhook;
      const elsewhere = (await t.http.post(`/api/v1/inboxes/${otherInbox.id}/hooks`, { url: `${receiver.origin}/elsewhere` })).json().webhook;
      const tenantWide = (await t.http.post('/api/v1/webhooks', { url: `${receiver.origin}/everything` })).json();

      const sent = await sendMail(t.smtpPort, {
        from: 'Alice <alice@example.com>',
        to: inbox.address,
        subject: 'Your code',
        text: 'Your code is 481516.',
        html: '<p>Your code is <b>481516</b>.</p>',
        headers: { 'X-Custom': 'custom value' },
        attachments: [{ filename: 'notes.txt', content: 'some notes' }],
      });

      const [request] = await receiver.waitFor(1, (r) => r.path === '/linked' && r.headers['x-email-id'] === sent.id);
      const delivery = request as ReceivedRequest;
      expect(delivery.method).toBe('POST');
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(signatureValid(delivery, linked.secret)).toBe(true);
      expect(signatureValid(delivery, tenantWide.secret)).toBe(false);

      const timestamp = Number(delivery.headers['x-webhook-timestamp']);
      expect(Math.abs(Date.now() / 1000 - timestamp)).toBeLessThan(60);
      const deliveryId = String(delivery.headers['x-webhook-delivery-id']);
      expect(deliveryId).toMatch(/^[0-9a-f-]{36}$/);
      const replaySignature = createHmac('sha256', linked.secret).update(`${deliveryId}.${timestamp}.`).update(delivery.body).digest('hex');
      expect(delivery.headers['x-webhook-timestamp-signature']).toBe(replaySignature);

      const payload = delivery.json();
      expect(Object.keys(payload).sort()).toEqual(
        [
          ...['attachments', 'authSummary', 'body', 'dkimResult', 'dmarcResult', 'from', 'headers', 'html', 'id', 'receivedAt', 'spfResult', 'subject', 'to', 'usesCustomStorage'],
          // The spam verdict (docs/spam.md); this app has no filter configured.
          ...['spamCheck', 'spamScore', 'spamThreshold', 'isSpam', 'spamAction', 'spamRules'],
        ].sort(),
      );
      expect(payload).toMatchObject({
        id: sent.id,
        from: 'alice@example.com',
        to: [inbox.address],
        subject: 'Your code',
        body: expect.stringContaining('481516'),
        html: expect.stringContaining('<b>481516</b>'),
        usesCustomStorage: false,
        spamCheck: 'off',
        spamScore: null,
        isSpam: null,
        spamRules: [],
        headers: expect.objectContaining({ 'x-custom': 'custom value', subject: 'Your code' }),
        attachments: [{ id: expect.any(String), filename: 'notes.txt', contentType: 'text/plain', size: 10 }],
      });
      expect(payload.receivedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(payload.authSummary).toMatch(/^SPF: \w+, DKIM: \w+, DMARC: \w+$/);

      await receiver.waitFor(1, (r) => r.path === '/everything' && r.headers['x-email-id'] === sent.id);
      const [entry] = await webhookLogs(sent.id, linked.id, 1);
      expect(entry).toMatchObject({ type: 'WEBHOOK', status: 'SUCCESS', emailId: sent.id });
      expect(entry?.metadata).toMatchObject({ webhookId: linked.id, emailId: sent.id, statusCode: 200, attemptsMade: 1, durationMs: expect.any(Number) });
      await webhookLogs(sent.id, tenantWide.id, 1);
      const logs = (await t.http.get(`/api/v1/logs/email/${sent.id}`)).json().data as LogEntry[];
      expect(logs.some((e) => e.metadata.webhookId === elsewhere.id)).toBe(false);
      expect(receiver.received.some((r) => r.path === '/elsewhere')).toBe(false);
      await t.http.delete(`/api/v1/webhooks/${tenantWide.id}`);
    });

    it('omits html when the email has none', async () => {
      const inbox = await newInbox('plain-only');
      await t.http.post(`/api/v1/inboxes/${inbox.id}/hooks`, { url: `${receiver.origin}/plain` });
      const sent = await sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, subject: 'plain', text: 'just text' });
      const [request] = await receiver.waitFor(1, (r) => r.path === '/plain' && r.headers['x-email-id'] === sent.id);
      expect(request?.json()).not.toHaveProperty('html');
      expect(request?.json().attachments).toEqual([]);
    });

    it('retries a failing receiver: fails twice, then succeeds, with three WEBHOOK entries', async () => {
      const inbox = await newInbox('flaky');
      const webhook = (await t.http.post(`/api/v1/inboxes/${inbox.id}/hooks`, { url: `${receiver.origin}/flaky` })).json().webhook;
      let calls = 0;
      receiver.respondWith((r) => (r.path === '/flaky' && ++calls <= 2 ? 500 : 200));
      const sent = await sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, subject: 'flaky', text: 'x' });

      const requests = await receiver.waitFor(3, (r) => r.path === '/flaky' && r.headers['x-email-id'] === sent.id);
      expect(new Set(requests.map((r) => r.headers['x-webhook-delivery-id'])).size).toBe(1);
      expect(requests.map((r) => r.headers['x-webhook-attempt'])).toEqual(['1', '2', '3']);

      const entries = await webhookLogs(sent.id, webhook.id, 3);
      expect(entries.map((e) => [e.status, e.metadata.attemptsMade, e.metadata.statusCode])).toEqual([
        ['PENDING', 1, 500],
        ['PENDING', 2, 500],
        ['SUCCESS', 3, 200],
      ]);
      const page = await t.http.get(`/api/v1/webhooks/${webhook.id}/logs`);
      expect(page.json()).toMatchObject({ totalItems: 3, perPage: 20, currentPage: 1 });
      expect((await t.http.get(`/api/v1/webhooks/${webhook.id}/logs?status=success`)).json().totalItems).toBe(1);
      receiver.respondWith(() => 200);
    });

    it('gives up after the schedule (FAILED), then resends from the log entry', async () => {
      const inbox = await newInbox('down');
      const webhook = (await t.http.post(`/api/v1/inboxes/${inbox.id}/hooks`, { url: `${receiver.origin}/down` })).json().webhook;
      receiver.respondWith((r) => (r.path === '/down' ? 503 : 200));
      const sent = await sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, subject: 'down', text: 'x' });

      const entries = await webhookLogs(sent.id, webhook.id, 3);
      expect(entries.map((e) => e.status)).toEqual(['PENDING', 'PENDING', 'FAILED']);
      const failedPage = (await t.http.get(`/api/v1/webhooks/${webhook.id}/logs?status=failed`)).json();
      expect(failedPage.totalItems).toBe(1);
      const failed = failedPage.data[0] as LogEntry;
      expect(failed.metadata).toMatchObject({ attemptsMade: 3, statusCode: 503 });

      const stillDown = await t.http.post(`/api/v1/logs/${failed.id}/resend`);
      expect(stillDown.status).toBe(200);
      expect(stillDown.json()).toMatchObject({ success: false, newLogId: expect.any(String) });

      receiver.respondWith(() => 200);
      const resent = await t.http.post(`/api/v1/logs/${failed.id}/resend`);
      expect(resent.json()).toMatchObject({ success: true, message: expect.stringContaining('Delivered') });
      const all = await webhookLogs(sent.id, webhook.id, 5);
      const newest = all.find((e) => e.id === resent.json().newLogId);
      expect(newest).toMatchObject({ status: 'SUCCESS', metadata: { webhookId: webhook.id, statusCode: 200, attemptsMade: 4 } });
      const requests = receiver.received.filter((r) => r.path === '/down');
      expect(requests.at(-1)?.headers['x-webhook-delivery-id']).toBe(requests[0]?.headers['x-webhook-delivery-id']);

      expect((await t.http.post(`/api/v1/logs/${resent.json().newLogId}/resend`)).status).toBe(400);
      const received = (await t.http.get(`/api/v1/logs/email/${sent.id}`)).json().data.find((e: LogEntry) => e.type === 'SMTP_RECEIVED');
      expect((await t.http.post(`/api/v1/logs/${received.id}/resend`)).status).toBe(400);
      expect((await t.http.post('/api/v1/logs/00000000-0000-4000-8000-000000000000/resend')).status).toBe(404);
      const other = t.client((await t.createTenant('Stranger')).apiKey);
      expect((await other.post(`/api/v1/logs/${failed.id}/resend`)).status).toBe(404);
    });

    it('records timeouts and refused connections with the error text and no status', async () => {
      const inbox = await newInbox('unreachable');
      const closed = await startWebhookReceiver();
      const refusedUrl = `${closed.origin}/gone`;
      await closed.close();
      const refused = (await t.http.post(`/api/v1/inboxes/${inbox.id}/hooks`, { url: refusedUrl })).json().webhook;
      const hanging = (await t.http.post(`/api/v1/inboxes/${inbox.id}/hooks`, { url: `${receiver.origin}/hang` })).json().webhook;
      receiver.respondWith((r) => (r.path === '/hang' ? new Promise<number>(() => undefined) : 200));
      const sent = await sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, subject: 'nobody home', text: 'x' });

      const [refusedEntry] = await webhookLogs(sent.id, refused.id, 1);
      expect(refusedEntry).toMatchObject({ status: 'PENDING', metadata: { statusCode: null, attemptsMade: 1, error: expect.stringContaining('ECONNREFUSED') } });
      const [timeoutEntry] = await webhookLogs(sent.id, hanging.id, 1);
      expect(timeoutEntry).toMatchObject({ status: 'PENDING', metadata: { statusCode: null, error: expect.stringContaining('timed out after 1500 ms') } });
      await t.http.delete(`/api/v1/webhooks/${refused.id}`);
      await t.http.delete(`/api/v1/webhooks/${hanging.id}`);
      receiver.respondWith(() => 200);
    });
  });
});
