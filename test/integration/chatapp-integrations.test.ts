import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

warnIfPostgresSkipped();

interface LogEntry {
  id: string;
  type: string;
  status: string;
  metadata: Record<string, unknown>;
}

describe.each(TEST_DIALECTS)('chat-app integrations (%s)', (dialect) => {
  let t: TestApp;
  let chat: WebhookReceiver;

  const entriesOf = (emailId: string, type: string, count: number) =>
    eventually(async () => {
      const data = (await t.http.get(`/api/v1/logs/email/${emailId}`)).json().data as LogEntry[];
      const matching = data.filter((e) => e.type === type).reverse();
      return matching.length >= count ? matching : undefined;
    }, `${count} ${type} entries`);

  beforeAll(async () => {
    chat = await startWebhookReceiver();
    t = await startTestApp({
      dialect,
      env: {
        MAILROOM_ALLOW_PRIVATE_WEBHOOKS: '1',
        MAILROOM_CHATAPP_API_URL: `${chat.origin}/api/v10`,
        MAILROOM_PUBLIC_URL: 'https://mailroom.example',
        MAILROOM_WEBHOOK_RETRY_SCHEDULE: '30',
        MAILROOM_WEBHOOK_POLL_INTERVAL_MS: '20',
      },
    });
  });
  afterAll(async () => {
    await t?.stop();
    await chat?.close();
  });

  it('validates, masks credentials after creation, updates and deletes', async () => {
    const missingChannel = await t.http.post('/api/v1/integrations', { kind: 'bot', botToken: 'secret-token' });
    expect(missingChannel.status).toBe(400);
    expect(missingChannel.json().field).toBe('channelId');
    const missingUrl = await t.http.post('/api/v1/integrations', { kind: 'webhook' });
    expect(missingUrl.json().field).toBe('url');
    expect((await t.http.post('/api/v1/integrations', { kind: 'pager' })).status).toBe(400);
    const badInbox = await t.http.post('/api/v1/integrations', { kind: 'webhook', url: `${chat.origin}/x`, inboxIds: ['nope'] });
    expect(badInbox.json().field).toBe('inboxIds');

    const created = await t.http.post('/api/v1/integrations', { kind: 'bot', name: 'ops', botToken: 'bot-token-1234', channelId: 'c1', guildId: 'g1' });
    expect(created.status).toBe(201);
    expect(created.json()).toMatchObject({ kind: 'bot', name: 'ops', botToken: 'bot-token-1234', channelId: 'c1', guildId: 'g1', url: null, active: true });
    const id = created.json().id;
    expect((await t.http.get(`/api/v1/integrations/${id}`)).json().botToken).toBe('…1234');
    const updated = await t.http.put(`/api/v1/integrations/${id}`, { channelId: 'c2', active: false });
    expect(updated.json()).toMatchObject({ channelId: 'c2', active: false });
    const wrongKind = await t.http.put(`/api/v1/integrations/${id}`, { url: `${chat.origin}/y` });
    expect(wrongKind.json().field).toBe('url');
    expect((await t.http.get('/api/v1/integrations')).json().totalItems).toBeGreaterThanOrEqual(1);
    const other = t.client((await t.createTenant('Other')).apiKey);
    expect((await other.get(`/api/v1/integrations/${id}`)).status).toBe(404);
    expect((await t.http.delete(`/api/v1/integrations/${id}`)).status).toBe(204);
    expect((await t.http.get(`/api/v1/integrations/${id}`)).status).toBe(404);
  });

  it('refuses a bot token that cannot be a header value, on create and on update', async () => {
    for (const botToken of ['tok\r\nx-injected: 1', 'tok en', 'tök']) {
      const created = await t.http.post('/api/v1/integrations', { kind: 'bot', botToken, channelId: 'c1' });
      expect(created.status).toBe(400);
      expect(created.json()).toMatchObject({ code: 'INVALID_BOT_TOKEN', field: 'botToken' });
    }
    const bot = (await t.http.post('/api/v1/integrations', { kind: 'bot', botToken: 'fine.token-1', channelId: 'c1' })).json();
    const updated = await t.http.put(`/api/v1/integrations/${bot.id}`, { botToken: 'a\nb' });
    expect(updated.json()).toMatchObject({ code: 'INVALID_BOT_TOKEN', field: 'botToken' });
    await t.http.delete(`/api/v1/integrations/${bot.id}`);
  });

  it('posts a short summary through the incoming webhook and the bot, with CHATAPP and CHATAPP_BOT entries', async () => {
    const inbox = (await t.http.post('/api/v1/inboxes', { prefix: 'chatty' })).json();
    const hook = (await t.http.post('/api/v1/integrations', { kind: 'webhook', url: `${chat.origin}/incoming/abc`, inboxIds: [inbox.id] })).json();
    const bot = (await t.http.post('/api/v1/integrations', { kind: 'bot', botToken: 'tok-9', channelId: 'chan-1', guildId: 'guild-1', inboxIds: [inbox.id] })).json();

    const sent = await sendMail(t.smtpPort, { from: 'Bob <bob@example.com>', to: inbox.address, subject: 'Deploy finished', text: 'Everything went fine.' });
    const [incoming] = await chat.waitFor(1, (r) => r.path === '/incoming/abc');
    const [posted] = await chat.waitFor(1, (r) => r.path === '/api/v10/channels/chan-1/messages');
    expect(posted?.headers.authorization).toBe('Bot tok-9');
    for (const request of [incoming, posted]) {
      const message = request?.json();
      expect(message.content).toContain('bob@example.com');
      expect(message.content).toContain('Deploy finished');
      expect(message.embeds[0]).toMatchObject({ description: 'Everything went fine.', url: `https://mailroom.example/emails/${sent.id}` });
    }

    const [chatEntry] = await entriesOf(sent.id, 'CHATAPP', 1);
    expect(chatEntry).toMatchObject({ status: 'SUCCESS', metadata: { integrationId: hook.id, attemptsMade: 1, statusCode: 200 } });
    const [botEntry] = await entriesOf(sent.id, 'CHATAPP_BOT', 1);
    expect(botEntry).toMatchObject({ status: 'SUCCESS', metadata: { channelConfigId: bot.id, channelId: 'chan-1', guildId: 'guild-1', attemptsMade: 1 } });
    await t.http.delete(`/api/v1/integrations/${hook.id}`);
    await t.http.delete(`/api/v1/integrations/${bot.id}`);
  });

  it('sends mail fields inert: no mentions parsed, markdown shown literally', async () => {
    const inbox = (await t.http.post('/api/v1/inboxes', { prefix: 'chat-inert' })).json();
    const hook = (await t.http.post('/api/v1/integrations', { kind: 'webhook', url: `${chat.origin}/incoming/inert`, inboxIds: [inbox.id] })).json();
    const subject = '@everyone @here [click](http://evil.example) **urgent** <@123>';
    await sendMail(t.smtpPort, { from: '"[x](http://evil.example)" <eve@example.com>', to: inbox.address, subject, text: '`code` @everyone' });
    const [request] = await chat.waitFor(1, (r) => r.path === '/incoming/inert');
    const message = request?.json();
    expect(message.allowed_mentions).toEqual({ parse: [] });
    const rendered = [message.content, message.embeds[0].title, message.embeds[0].description, ...message.embeds[0].fields.map((f: { value: string }) => f.value)];
    for (const text of rendered) {
      expect(text).not.toMatch(/@(everyone|here)/);
      expect(text).not.toContain('](');
      expect(text).not.toMatch(/(^|[^\\])\*\*/);
    }
    expect(message.embeds[0].title).toBe('@\u200beveryone @\u200bhere \\[click\\]\\(http://evil.example\\) \\*\\*urgent\\*\\* \\<@123\\>');
    await t.http.delete(`/api/v1/integrations/${hook.id}`);
  });

  it('retries a failing chat app, marks it FAILED, and resends it from the log', async () => {
    const inbox = (await t.http.post('/api/v1/inboxes', { prefix: 'chat-down' })).json();
    const bot = (await t.http.post('/api/v1/integrations', { kind: 'bot', botToken: 'tok', channelId: 'down', inboxIds: [inbox.id] })).json();
    chat.respondWith((r) => (r.path.includes('/channels/down/') ? 429 : 200));
    const sent = await sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, subject: 'x', text: 'x' });

    const entries = await entriesOf(sent.id, 'CHATAPP_BOT', 2);
    expect(entries.map((e) => [e.status, e.metadata.attemptsMade, e.metadata.statusCode])).toEqual([
      ['PENDING', 1, 429],
      ['FAILED', 2, 429],
    ]);
    chat.respondWith(() => 200);
    const resent = await t.http.post(`/api/v1/logs/${entries[1]?.id}/resend`);
    expect(resent.json()).toMatchObject({ success: true, newLogId: expect.any(String) });
    const after = await entriesOf(sent.id, 'CHATAPP_BOT', 3);
    expect(after[2]).toMatchObject({ id: resent.json().newLogId, status: 'SUCCESS', metadata: { channelConfigId: bot.id, attemptsMade: 3 } });
  });
});
