import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

describe.each(TEST_DIALECTS)('SMTP to emails API (%s)', (dialect) => {
  let t: TestApp;
  let address: string;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    const inbox = await t.http.post('/api/v1/inboxes', { prefix: 'signup' });
    expect(inbox.status).toBe(201);
    address = inbox.json().address;
  });
  afterAll(() => t?.stop());

  it('accepts a message with 250 Message accepted <uuid> and serves it by that id', async () => {
    const sent = await sendMail(t.smtpPort, {
      from: 'Alice <alice@example.com>',
      to: address,
      cc: 'carol@example.com',
      subject: 'Welcome aboard',
      text: 'Hello there, your code is 123456.',
      html: '<p>Hello there, your code is <b>123456</b>.</p>',
      attachments: [{ filename: 'notes.txt', content: 'some notes' }],
    });
    expect(sent.response).toMatch(/^250 Message accepted <[0-9a-f-]{36}>$/);

    const email = await t.http.get(`/api/v1/emails/${sent.id}`);
    expect(email.status).toBe(200);
    const body = email.json();
    expect(body).toMatchObject({
      id: sent.id,
      from: 'alice@example.com',
      to: [address],
      cc: ['carol@example.com'],
      subject: 'Welcome aboard',
      read: false,
      hasAttachments: true,
      snippet: 'Hello there, your code is 123456.',
    });
    expect(['pass', 'fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror']).toContain(body.spfResult);
    expect(body.authSummary).toMatch(/^SPF: \w+, DKIM: \w+, DMARC: \w+$/);
    expect(body.attachments).toEqual([expect.objectContaining({ filename: 'notes.txt', contentType: 'text/plain', size: 10 })]);

    const attachment = await t.http.get(`/api/v1/emails/${sent.id}/attachments/${body.attachments[0].id}`);
    expect(attachment.status).toBe(200);
    expect(attachment.text).toBe('some notes');
    expect(attachment.headers['content-disposition']).toContain('notes.txt');

    const eml = await t.http.get(`/api/v1/emails/${sent.id}/eml`);
    expect(eml.status).toBe(200);
    expect(eml.headers['content-type']).toBe('message/rfc822');
    expect(eml.text).toContain('Subject: Welcome aboard');

    const content = await t.http.get(`/api/v1/emails/${sent.id}/content`);
    expect(content.json()).toMatchObject({ html: expect.stringContaining('<b>123456</b>'), text: expect.stringContaining('123456') });

    const logs = await t.http.get(`/api/v1/logs/email/${sent.id}`);
    const types = logs.json().data.map((entry: { type: string }) => entry.type);
    expect(types).toEqual(expect.arrayContaining(['SMTP_RECEIVED', 'SPAM_CHECK']));
    const received = logs.json().data.find((entry: { type: string }) => entry.type === 'SMTP_RECEIVED');
    expect(received.metadata).toMatchObject({ baseEmailId: sent.id, from: 'alice@example.com', subject: 'Welcome aboard', remoteAddress: '127.0.0.1' });
  });

  it('refuses unknown recipients at RCPT TO with 550 5.1.1', async () => {
    await expect(sendMail(t.smtpPort, { from: 'a@example.com', to: `nobody@${t.app.ctx.config.mailDomain}`, text: 'x' })).rejects.toMatchObject({
      responseCode: 550,
      response: expect.stringContaining('5.1.1'),
    });
  });

  it('keeps another tenant out: 404, never 403', async () => {
    const sent = await sendMail(t.smtpPort, { from: 'a@example.com', to: address, subject: 'private', text: 'x' });
    const other = await t.createTenant('Other');
    const response = await t.client(other.apiKey).get(`/api/v1/emails/${sent.id}`);
    expect(response.status).toBe(404);
    expect(response.json()).toMatchObject({ statusCode: 404, error: 'Not Found', code: 'EMAIL_NOT_FOUND' });
  });
});
