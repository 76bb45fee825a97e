import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { RawSmtpClient } from '../../helpers/raw-smtp.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/** Connection limits do not touch the database: one dialect is enough. */
describe('SMTP session limits', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        MAILROOM_SMTP_MAX_SESSIONS: '4',
        MAILROOM_SMTP_MAX_SESSIONS_PER_IP: '2',
        MAILROOM_SMTP_IDLE_TIMEOUT_MS: '1500',
        MAILROOM_SMTP_SESSION_LIFETIME_MS: '3000',
        MAILROOM_SMTP_MIN_DATA_RATE: '1000',
        MAILROOM_SMTP_MIN_DATA_RATE_WINDOW_MS: '1000',
      },
    });
  });
  afterAll(() => t?.stop());

  it('refuses sessions past the per-IP and total limits with 421 4.7.0, keeps the others, and admits again once some leave', async () => {
    const a1 = await RawSmtpClient.connect(t.smtpPort, '127.0.0.1');
    const a2 = await RawSmtpClient.connect(t.smtpPort, '127.0.0.1');
    expect([a1.greeting.code, a2.greeting.code]).toEqual([220, 220]);
    const a3 = await RawSmtpClient.connect(t.smtpPort, '127.0.0.1');
    expect(a3.greeting).toEqual({ code: 421, text: '4.7.0 Too many connections from your address, try again later' });
    await a3.client.whenClosed();

    const b1 = await RawSmtpClient.connect(t.smtpPort, '127.0.0.2');
    const b2 = await RawSmtpClient.connect(t.smtpPort, '127.0.0.2');
    expect([b1.greeting.code, b2.greeting.code]).toEqual([220, 220]);
    const c1 = await RawSmtpClient.connect(t.smtpPort, '127.0.0.3');
    expect(c1.greeting).toEqual({ code: 421, text: '4.7.0 Too many connections, try again later' });
    await c1.client.whenClosed();

    expect((await a1.client.command('NOOP')).code).toBe(250);
    expect((await b2.client.command('NOOP')).code).toBe(250);

    await a1.client.quit();
    const again = await eventually(async () => {
      const attempt = await RawSmtpClient.connect(t.smtpPort, '127.0.0.3');
      if (attempt.greeting.code === 220) return attempt;
      await attempt.client.whenClosed();
      return undefined;
    }, 'a free session slot');
    expect((await again.client.command('EHLO client.test')).code).toBe(250);
    for (const client of [a2.client, b1.client, b2.client, again.client]) await client.quit();
  });

  it('closes an idle session with 421', async () => {
    const { client } = await RawSmtpClient.connect(t.smtpPort);
    const started = performance.now();
    const reply = await client.reply();
    expect(reply.code).toBe(421);
    await client.whenClosed();
    expect(performance.now() - started).toBeGreaterThan(1000);
  });

  it('ends a session at its lifetime even when the client sends a command before every idle timeout', async () => {
    const { client } = await RawSmtpClient.connect(t.smtpPort);
    const started = performance.now();
    const keepAlive = setInterval(() => client.write('NOOP\r\n'), 500);
    try {
      for (;;) {
        const reply = await client.reply();
        if (reply.code === 250) continue;
        expect(reply).toEqual({ code: 421, text: '4.4.2 Session time limit reached, closing connection' });
        break;
      }
      await client.whenClosed();
    } finally {
      clearInterval(keepAlive);
    }
    expect(performance.now() - started).toBeGreaterThan(2500);
  });

  it('closes a DATA transfer that trickles below the minimum rate with 421 4.4.2', async () => {
    const address = (await t.http.post('/api/v1/inboxes', {})).json().address;
    const { client } = await RawSmtpClient.connect(t.smtpPort);
    await client.envelope('sender@example.com', [address]);
    expect((await client.command('DATA')).code).toBe(354);
    const trickle = setInterval(() => client.write('x'), 200);
    try {
      const reply = await client.reply();
      expect(reply).toEqual({ code: 421, text: '4.4.2 Data transfer too slow, closing connection' });
      await client.whenClosed();
    } finally {
      clearInterval(trickle);
    }
    const emails = (await t.http.get('/api/v1/emails')).json();
    expect(emails.data).toHaveLength(0);
  });
});
