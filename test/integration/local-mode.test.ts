import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import nodemailer from 'nodemailer';
import type { SMTPServerSession } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticatedTraceHeader } from '../../src/transports/smtp/smtp-auth.js';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { RawSmtpClient } from '../helpers/raw-smtp.js';
import { LOCAL_TEST_ENV } from '../helpers/local-mode.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const run = promisify(execFile);


interface EmailView {
  id: string;
  to: string[];
  subject: string;
}

/** A plain-HTTP API client with the local account's key (the one the start banner prints). */
function localApi(t: TestApp) {
  const base = `http://127.0.0.1:${t.addresses.http.port}/api/v1`;
  const key = t.app.ctx.localAccount?.apiKey ?? '';
  return async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${base}${path}`, { ...init, headers: { 'x-api-key': key, 'content-type': 'application/json', ...init.headers } });
    return { status: response.status, headers: response.headers, body: (await response.json().catch(() => undefined)) as Record<string, unknown> };
  };
}

async function emailBySubject(t: TestApp, subject: string): Promise<EmailView> {
  const api = localApi(t);
  return eventually(async () => {
    const page = await api(`/emails?subject=${encodeURIComponent(subject)}`);
    return (page.body.data as EmailView[] | undefined)?.[0];
  }, `email "${subject}" in the local account`);
}

describe.each(TEST_DIALECTS)('local mode on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dialect, env: LOCAL_TEST_ENV });
  });
  afterAll(async () => t?.stop());

  it('catches mail to any address from nodemailer with its default options, no TLS offered', async () => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: t.smtpPort });
    const info = await transport.sendMail({ from: 'app@example.com', to: ['alice@gmail.com', 'signup+tag@random-domain.example'], subject: 'Default options', text: 'hello' });
    transport.close();
    expect(info.response).toMatch(/^250 Message accepted/);
    const email = await emailBySubject(t, 'Default options');
    expect(email.to).toEqual(['alice@gmail.com', 'signup+tag@random-domain.example']);
    const { client } = await RawSmtpClient.connect(t.smtpPort);
    const ehlo = await client.command('EHLO client.test');
    await client.quit();
    expect(ehlo.text).not.toContain('STARTTLS');
    expect(ehlo.text).toContain('AUTH PLAIN LOGIN CRAM-MD5');
  });

  it.each(['PLAIN', 'LOGIN', 'CRAM-MD5'])('accepts any user and password with AUTH %s and records the user name', async (method) => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: t.smtpPort, auth: { user: `app-user-${method}`, pass: 'whatever' }, authMethod: method });
    await transport.sendMail({ from: 'app@example.com', to: 'bob@example.org', subject: `Auth ${method}`, text: 'hi' });
    transport.close();
    const email = await emailBySubject(t, `Auth ${method}`);
    const content = await localApi(t)(`/emails/${email.id}/content`);
    expect((content.body.headers as Record<string, string>).received).toContain(`(Authenticated sender: app-user-${method})`);
  });

  it('refuses a user name with line breaks, and would keep one inside its trace header', async () => {
    const { client } = await RawSmtpClient.connect(t.smtpPort);
    await client.command('EHLO client.test');
    const credentials = Buffer.from('\0evil\r\nX-Injected: yes\0secret').toString('base64');
    expect((await client.command(`AUTH PLAIN ${credentials}`)).code).toBeGreaterThanOrEqual(500);
    await client.quit();
    const session = { user: 'evil\r\nX-Injected: yes', hostNameAppearsAs: 'client.test', remoteAddress: '127.0.0.1' } as unknown as SMTPServerSession;
    const header = authenticatedTraceHeader(session, 'mx.test')?.toString() ?? '';
    expect(header.split('\r\n').filter((line) => /^\S/.test(line))).toHaveLength(1);
    expect(header).toContain('(Authenticated sender: evil??X-Injected: yes)');
  });

  it('takes mail from Python smtplib after login()', async () => {
    const script = [
      'import smtplib, sys',
      'from email.message import EmailMessage',
      'm = EmailMessage(); m["From"] = "py@example.com"; m["To"] = "someone@gmail.com"; m["Subject"] = "From smtplib"; m.set_content("hi")',
      's = smtplib.SMTP("127.0.0.1", int(sys.argv[1]), timeout=30); s.login("pyuser", "pypass"); s.send_message(m); s.quit()',
    ].join('\n');
    await run('python3', ['-c', script, String(t.smtpPort)]);
    const email = await emailBySubject(t, 'From smtplib');
    expect(email.to).toEqual(['someone@gmail.com']);
  });

  it('feeds an inbox whose address matches: inbox messages and extraction keep working', async () => {
    const api = localApi(t);
    const inbox = (await api('/inboxes', { method: 'POST', body: '{}' })).body as { id: string; address: string };
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: t.smtpPort });
    await transport.sendMail({ from: 'app@example.com', to: inbox.address, subject: 'Your code', text: 'Your verification code is 482913' });
    transport.close();
    const message = await eventually(async () => ((await api(`/inboxes/${inbox.id}/messages`)).body.data as Array<{ extracted: { codes: string[] } }> | undefined)?.[0], 'inbox message');
    expect(JSON.stringify(message.extracted)).toContain('482913');
  });

  it('stores or cleanly refuses odd recipients: no domain, quoted local part, IDN domain, 1000 recipients', async () => {
    const { client } = await RawSmtpClient.connect(t.smtpPort);
    await client.command('EHLO client.test');
    await client.command('MAIL FROM:<odd@example.com>');
    expect((await client.command('RCPT TO:<nodomain>')).code).toBe(501);
    expect((await client.command('RCPT TO:<"john doe"@example.com>')).code).toBe(501);
    expect((await client.command('RCPT TO:<user@bücher.example>')).code).toBe(250);
    // The IDN recipient above is the first of the 100 a message may have (docs/security.md); past them, 452 4.5.3.
    const codes: number[] = [];
    for (let i = 0; i < 1000; i++) codes.push((await client.command(`RCPT TO:<r${i}@many.example>`)).code);
    expect(codes.slice(0, 99).every((code) => code === 250)).toBe(true);
    expect(codes.slice(99).every((code) => code === 452)).toBe(true);
    const reply = await client.data('Subject: Many recipients\r\n\r\nhi\r\n');
    await client.quit();
    expect(reply.code).toBe(250);
    const email = await emailBySubject(t, 'Many recipients');
    expect(email.id).toBeDefined();
  });

  it('applies no rate limit to the API and opens the dashboard without a login from this machine', async () => {
    const api = localApi(t);
    const listed = await api('/emails');
    expect(listed.status).toBe(200);
    expect(listed.headers.get('x-ratelimit-limit')).toBeNull();
    expect(listed.headers.get('strict-transport-security')).toBeNull();
    const usage = await api('/usage');
    expect(usage.body.limitsEnforced).toBe(false);
    const session = await fetch(`http://127.0.0.1:${t.addresses.http.port}/api/v1/auth/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(session.status).toBe(200);
    const { user } = (await session.json()) as { user: { email: string; tenantId: string } };
    expect(user).toMatchObject({ email: 'local@mailroom.localhost', tenantId: t.app.ctx.localAccount?.tenantId });
  });

  it('keeps the same API key across restarts (stored in the data dir)', async () => {
    const again = await startTestApp({ dialect, env: LOCAL_TEST_ENV, dataDir: t.dataDir, keepDataDir: true, databaseUrl: t.app.ctx.config.db.dialect === 'postgres' ? t.app.ctx.config.db.url : undefined });
    try {
      expect(again.app.ctx.localAccount?.apiKey).toBe(t.app.ctx.localAccount?.apiKey);
      expect(again.app.ctx.localAccount?.tenantId).toBe(t.app.ctx.localAccount?.tenantId);
    } finally {
      await again.stop();
    }
  });
});

describe('serve keeps its SMTP contract', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.stop());

  it('offers STARTTLS and no AUTH; a client that insists on AUTH gets 535; unknown recipients get 550', async () => {
    const { client } = await RawSmtpClient.connect(t.smtpPort);
    const ehlo = await client.command('EHLO client.test');
    expect(ehlo.text).toContain('STARTTLS');
    expect(ehlo.text).not.toContain('AUTH');
    expect((await client.command('AUTH PLAIN AHVzZXIAcGFzcw==')).code).toBe(535);
    expect((await client.command('AUTH LOGIN')).code).toBe(535);
    await client.command('MAIL FROM:<a@example.com>');
    expect((await client.command('RCPT TO:<alice@gmail.com>')).code).toBe(550);
    await client.quit();
  });

  it('refuses a session on plain HTTP from loopback: the dashboard login stays required', async () => {
    const response = await t.client().post('/api/v1/auth/refresh', {});
    expect(response.status).toBe(401);
  });
});
