import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DiskBlobStore } from '../../src/adapters/blobs/disk.blob-store.js';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { RawSmtpClient, type SmtpReplyLine } from '../helpers/raw-smtp.js';
import { sendMail } from '../helpers/smtp-client.js';
import { liveBlobs, storedState, type StoredState } from '../helpers/stored-state.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

const MAX_MESSAGE_BYTES = 2 * 1024 * 1024;
const ACCEPTED = /^Message accepted <([0-9a-f-]{36})>$/;

function acceptedId(reply: SmtpReplyLine): string {
  expect(reply.code, reply.text).toBe(250);
  const match = ACCEPTED.exec(reply.text);
  expect(match, reply.text).not.toBeNull();
  return (match as RegExpExecArray)[1] as string;
}

describe.each(TEST_DIALECTS)('SMTP bad input (%s)', (dialect) => {
  let t: TestApp;
  let address: string;
  let before: StoredState;

  /** Sends one message on a fresh connection with byte-exact content and returns the DATA reply. */
  const sendRawBytes = async (message: string | Buffer): Promise<SmtpReplyLine> => {
    const { client } = await RawSmtpClient.connect(t.smtpPort);
    try {
      await client.envelope('sender@example.com', [address]);
      return await client.data(message);
    } finally {
      await client.quit();
    }
  };
  const getEmail = async (id: string) => {
    const response = await t.http.get(`/api/v1/emails/${id}`);
    expect(response.status, response.text).toBe(200);
    return response.json();
  };
  const expectNothingStored = async () => expect(await storedState(t)).toEqual(before);

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { MAILROOM_SMTP_MAX_MESSAGE_BYTES: String(MAX_MESSAGE_BYTES) } });
    address = (await t.http.post('/api/v1/inboxes', { prefix: 'robust' })).json().address;
  });
  afterAll(() => t?.stop());
  beforeEach(async () => {
    before = await storedState(t);
  });

  it('accepts malformed MIME (unclosed multipart, broken base64, a header line without a colon) and keeps the raw bytes', async () => {
    const raw = [
      'From: broken@example.com',
      `To: ${address}`,
      'Subject: broken mime',
      'this line is not a header',
      'Content-Type: multipart/mixed; boundary="never-closed"',
      '',
      '--never-closed',
      'Content-Type: text/plain',
      '',
      'visible text',
      '--never-closed',
      'Content-Type: application/octet-stream; name="x.bin"',
      'Content-Transfer-Encoding: base64',
      '',
      '@@@not base64!!!',
      '',
    ].join('\r\n');
    const id = acceptedId(await sendRawBytes(raw));
    const email = await getEmail(id);
    expect(email.from).toBe('broken@example.com');
    const eml = await t.http.get(`/api/v1/emails/${id}/eml`);
    expect(eml.text).toContain('@@@not base64!!!');
    expect(await storedState(t)).toMatchObject({ emails: before.emails + 1 });
  });

  it('accepts a message with no From, Date or Subject: from falls back to MAIL FROM, date to the time received', async () => {
    const id = acceptedId(await sendRawBytes(`To: ${address}\r\n\r\nno headers to speak of\r\n`));
    const email = await getEmail(id);
    expect(email).toMatchObject({ from: 'sender@example.com', subject: '', snippet: 'no headers to speak of' });
    expect(Math.abs(Date.parse(email.date) - Date.parse(email.createdAt))).toBeLessThan(5_000);
  });

  it('accepts a bounce with the null sender (MAIL FROM:<>) and no From header', async () => {
    const { client } = await RawSmtpClient.connect(t.smtpPort);
    await client.envelope('', [address]);
    const id = acceptedId(await client.data(`To: ${address}\r\nSubject: Undelivered Mail Returned to Sender\r\n\r\nbounce\r\n`));
    await client.quit();
    expect(await getEmail(id)).toMatchObject({ from: '', subject: 'Undelivered Mail Returned to Sender' });
    const logs = (await t.http.get(`/api/v1/logs/email/${id}`)).json().data;
    expect(logs.find((entry: { type: string }) => entry.type === 'SMTP_RECEIVED').message).toContain('from <>');
  });

  it('decodes raw 8-bit UTF-8 in headers (SMTPUTF8-style, no RFC 2047 encoding)', async () => {
    const raw = Buffer.from(`From: "Jürgen Groß" <jurgen@example.com>\r\nTo: ${address}\r\nSubject: Grüße aus Köln – 日本語\r\n\r\nHallo\r\n`, 'utf8');
    const id = acceptedId(await sendRawBytes(raw));
    const email = await getEmail(id);
    expect(email.subject).toBe('Grüße aus Köln – 日本語');
    expect(email.from).toBe('jurgen@example.com');
  });

  it('accepts an unknown charset and still serves the text', async () => {
    const raw = `From: a@example.com\r\nTo: ${address}\r\nSubject: klingon\r\nContent-Type: text/plain; charset="x-klingon-unknown"\r\n\r\nplain ascii inside\r\n`;
    const id = acceptedId(await sendRawBytes(raw));
    const content = await t.http.get(`/api/v1/emails/${id}/content`);
    expect(content.json().text).toContain('plain ascii inside');
  });

  it('accepts a message that is only an attachment', async () => {
    const raw = [
      'From: a@example.com',
      `To: ${address}`,
      'Subject: only a file',
      'Content-Type: application/pdf; name="invoice.pdf"',
      'Content-Disposition: attachment; filename="invoice.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('%PDF-1.4 fake').toString('base64'),
      '',
    ].join('\r\n');
    const id = acceptedId(await sendRawBytes(raw));
    const email = await getEmail(id);
    expect(email).toMatchObject({ hasAttachments: true, snippet: '' });
    expect(email.attachments).toEqual([expect.objectContaining({ filename: 'invoice.pdf', contentType: 'application/pdf', size: 13 })]);
    const file = await t.http.get(`/api/v1/emails/${id}/attachments/${email.attachments[0].id}`);
    expect(file.text).toBe('%PDF-1.4 fake');
  });

  it('accepts headers with a 0-byte body', async () => {
    const id = acceptedId(await sendRawBytes(`From: a@example.com\r\nTo: ${address}\r\nSubject: empty body\r\n\r\n`));
    expect(await getEmail(id)).toMatchObject({ subject: 'empty body', snippet: '', hasAttachments: false });
  });

  it('refuses a completely empty DATA with 554 5.6.0 and stores nothing', async () => {
    const reply = await sendRawBytes('');
    expect(reply.code).toBe(554);
    expect(reply.text).toMatch(/^5\.6\.0 /);
    await expectNothingStored();
  });

  it('refuses a header block over 1 MB with 554 5.6.0, stores nothing, and the session goes on', async () => {
    const filler = Array.from({ length: 1100 }, (_, i) => `X-Filler-${i}: ${'x'.repeat(1000)}`).join('\r\n');
    const { client } = await RawSmtpClient.connect(t.smtpPort);
    await client.envelope('sender@example.com', [address]);
    const reply = await client.data(`From: a@example.com\r\nTo: ${address}\r\n${filler}\r\n\r\nbody\r\n`);
    expect(reply.code).toBe(554);
    expect(reply.text).toMatch(/^5\.6\.0 .*header size of 1048576 bytes/);
    await expectNothingStored();

    await client.envelope('sender@example.com', [address]);
    acceptedId(await client.data(`From: a@example.com\r\nTo: ${address}\r\nSubject: after\r\n\r\nfine\r\n`));
    await client.quit();
  });

  it('refuses a message over MAILROOM_SMTP_MAX_MESSAGE_BYTES with 552 5.3.4, stores nothing, and the session goes on', async () => {
    const { client } = await RawSmtpClient.connect(t.smtpPort);
    await client.envelope('sender@example.com', [address]);
    const body = `${'y'.repeat(998)}\r\n`.repeat(Math.ceil(MAX_MESSAGE_BYTES / 1000) + 10);
    const reply = await client.data(`From: a@example.com\r\nTo: ${address}\r\nSubject: big\r\n\r\n${body}`);
    expect(reply).toEqual({ code: 552, text: `5.3.4 Message exceeds the size limit of ${MAX_MESSAGE_BYTES} bytes` });
    await expectNothingStored();

    await client.envelope('sender@example.com', [address]);
    acceptedId(await client.data(`From: a@example.com\r\nTo: ${address}\r\nSubject: small\r\n\r\nfine\r\n`));
    await client.quit();
  });

  it('refuses MAIL FROM with a declared SIZE= over the limit with 552 5.3.4', async () => {
    const { client } = await RawSmtpClient.connect(t.smtpPort);
    const ehlo = await client.command('EHLO client.test');
    expect(ehlo.text.split('\n')).toEqual(expect.arrayContaining(['SIZE', 'PIPELINING', 'STARTTLS', '8BITMIME']));
    const refused = await client.command(`MAIL FROM:<a@example.com> SIZE=${MAX_MESSAGE_BYTES + 1}`);
    expect(refused).toEqual({ code: 552, text: `5.3.4 Message exceeds the size limit of ${MAX_MESSAGE_BYTES} bytes` });
    expect((await client.command(`MAIL FROM:<a@example.com> SIZE=${MAX_MESSAGE_BYTES}`)).code).toBe(250);
    await client.quit();
  });

  it('answers pipelined commands in order, refusing the unknown recipient and delivering to the known one', async () => {
    const { client } = await RawSmtpClient.connect(t.smtpPort);
    await client.command('EHLO client.test');
    const unknown = `nobody-here@${t.app.ctx.config.mailDomain}`;
    client.write(`MAIL FROM:<pipe@example.com>\r\nRCPT TO:<${unknown}>\r\nRCPT TO:<${address}>\r\nDATA\r\n`);
    expect((await client.reply()).code).toBe(250);
    const refused = await client.reply();
    expect(refused.code).toBe(550);
    expect(refused.text).toMatch(/^5\.1\.1 /);
    expect((await client.reply()).code).toBe(250);
    expect((await client.reply()).code).toBe(354);
    client.write(`From: pipe@example.com\r\nTo: ${address}\r\nSubject: pipelined\r\n\r\none\r\n.\r\n`);
    const first = acceptedId(await client.reply());

    // A second transaction in one write: RSET, envelope, DATA, message and QUIT together.
    client.write(`RSET\r\nMAIL FROM:<pipe@example.com>\r\nRCPT TO:<${address}>\r\nDATA\r\n`);
    expect((await Promise.all([client.reply(), client.reply(), client.reply(), client.reply()])).map((r) => r.code)).toEqual([250, 250, 250, 354]);
    client.write(`Subject: pipelined two\r\n\r\ntwo\r\n.\r\nQUIT\r\n`);
    const second = acceptedId(await client.reply());
    expect((await client.reply()).code).toBe(221);
    await client.whenClosed();
    expect((await getEmail(first)).subject).toBe('pipelined');
    expect((await getEmail(second)).subject).toBe('pipelined two');
  });

  it('closes a session that sends a command line over 16 KiB with 421, and keeps serving', async () => {
    const { client } = await RawSmtpClient.connect(t.smtpPort);
    await client.command('EHLO client.test');
    client.write(`MAIL FROM:<${'a'.repeat(100_000)}@example.com>\r\n`);
    expect(await client.reply()).toMatchObject({ code: 421, text: expect.stringContaining('Command line too long') });
    await client.whenClosed();
    await sendMail(t.smtpPort, { from: 'after@example.com', to: address, subject: 'after a long line', text: 'x' });
    expect(await storedState(t)).toMatchObject({ emails: before.emails + 1 });
  });

  it('stores nothing when the client drops the connection mid-DATA, and keeps serving', async () => {
    const { client } = await RawSmtpClient.connect(t.smtpPort);
    await client.envelope('dropper@example.com', [address]);
    expect((await client.command('DATA')).code).toBe(354);
    client.write(`From: dropper@example.com\r\nTo: ${address}\r\nSubject: never finished\r\n\r\n${'half a message\r\n'.repeat(2000)}`);
    client.destroy();
    await client.whenClosed();

    const next = await sendMail(t.smtpPort, { from: 'after@example.com', to: address, subject: 'after the drop', text: 'still here' });
    expect((await getEmail(next.id)).subject).toBe('after the drop');
    // Exactly the one message that was sent in full: its row, inbox entry, two log entries and EML.
    expect(await storedState(t)).toEqual({
      ...before,
      emails: before.emails + 1,
      inboxMessages: before.inboxMessages + 1,
      logs: before.logs + 2,
      blobs: before.blobs + 1,
    });
    const list = await t.http.get('/api/v1/emails?subject=never%20finished');
    expect(list.json().totalItems).toBe(0);
  });

  it('accepts a message after STARTTLS (raw client and nodemailer with requireTLS)', async () => {
    const { client } = await RawSmtpClient.connect(t.smtpPort);
    await client.command('EHLO client.test');
    expect((await client.startTls()).code).toBe(220);
    const ehlo = await client.command('EHLO client.test');
    expect(ehlo.text).not.toContain('STARTTLS');
    await client.envelope('tls@example.com', [address]);
    const id = acceptedId(await client.data(`From: tls@example.com\r\nTo: ${address}\r\nSubject: over tls\r\n\r\nsecret\r\n`));
    await client.quit();
    expect((await getEmail(id)).subject).toBe('over tls');

    const sent = await sendMail(t.smtpPort, { from: 'tls@example.com', to: address, subject: 'nodemailer tls', text: 'x', requireTLS: true } as never);
    expect((await getEmail(sent.id)).subject).toBe('nodemailer tls');
  });

  it('gives each tenant of one SMTP transaction its own email, linked by baseEmailId', async () => {
    const other = await t.createTenant('Second tenant');
    const otherClient = t.client(other.apiKey);
    const otherAddress = (await otherClient.post('/api/v1/inboxes', { prefix: 'second' })).json().address;
    const sent = await sendMail(t.smtpPort, { from: 'both@example.com', to: [address, otherAddress], subject: 'to two tenants', text: 'shared' });

    const mine = await getEmail(sent.id);
    expect(mine).toMatchObject({ id: sent.id, baseEmailId: sent.id, subject: 'to two tenants' });
    const theirs = (await otherClient.get('/api/v1/emails')).json().data;
    expect(theirs).toHaveLength(1);
    expect(theirs[0]).toMatchObject({ baseEmailId: sent.id, subject: 'to two tenants' });
    expect(theirs[0].id).not.toBe(sent.id);
    // Neither tenant sees the other's copy.
    expect((await otherClient.get(`/api/v1/emails/${sent.id}`)).status).toBe(404);
    expect((await t.http.get(`/api/v1/emails/${theirs[0].id}`)).status).toBe(404);

    const theirLogs = (await otherClient.get(`/api/v1/logs/email/${theirs[0].id}`)).json().data;
    expect(theirLogs.find((entry: { type: string }) => entry.type === 'SMTP_RECEIVED').metadata).toMatchObject({ baseEmailId: sent.id, to: [otherAddress] });
    const myLogs = (await t.http.get(`/api/v1/logs/email/${sent.id}`)).json().data;
    expect(myLogs.find((entry: { type: string }) => entry.type === 'SMTP_RECEIVED').metadata).toMatchObject({ baseEmailId: sent.id, to: [address] });
    expect(await storedState(t)).toMatchObject({ emails: before.emails + 2 });
  });
});

/**
 * A blob store that fails the attachment write of a message while its EML write is still in flight
 * (it finishes only after the failure), the order that exposes a cleanup racing the other writes.
 */
class FailingAttachmentStore extends DiskBlobStore {
  failing = true;

  constructor(readonly blobRoot: string) {
    super(blobRoot);
  }

  override async put(key: string, data: Buffer | Readable, contentType: string): Promise<string> {
    if (!this.failing) return super.put(key, data, contentType);
    if (key.includes('.attachment.')) {
      this.attachmentFailed();
      // What a full disk says: the path inside the server, which the sender must not read.
      throw new Error(`ENOSPC: no space left on device, write '${this.blobRoot}/${key}'`);
    }
    await this.failure;
    return super.put(key, data, contentType);
  }

  private attachmentFailed!: () => void;
  private readonly failure = new Promise<void>((resolve) => {
    this.attachmentFailed = resolve;
  });
}

describe.each(TEST_DIALECTS)('SMTP when storage fails (%s)', (dialect) => {
  let t: TestApp;
  let blobRoot: string;
  let store: FailingAttachmentStore;
  const logLines: string[] = [];

  beforeAll(async () => {
    blobRoot = await mkdtemp(join(tmpdir(), 'mailroom-failing-blobs-'));
    store = new FailingAttachmentStore(blobRoot);
    const logger = pino({ level: 'warn' }, { write: (line: string) => void logLines.push(line) });
    t = await startTestApp({ dialect, overrides: { blobs: store, logger } });
  });
  afterAll(async () => {
    await t?.stop();
    await rm(blobRoot, { recursive: true, force: true });
  });

  it('answers 451 4.3.0 so the sender retries, and leaves no row and no file behind', async () => {
    const address = (await t.http.post('/api/v1/inboxes', { prefix: 'failing' })).json().address;
    const before = await storedState(t, blobRoot);
    const message = { from: 'a@example.com', to: address, subject: 'with a file', text: 'x', attachments: [{ filename: 'a.txt', content: 'abc' }] };
    const refused = sendMail(t.smtpPort, message);
    await expect(refused).rejects.toMatchObject({ responseCode: 451, response: '451 4.3.0 Message could not be stored: internal storage error' });
    // The detail is the operator's: in the server log, with the path the reply leaves out.
    expect(logLines.find((line) => line.includes('"message refused"'))).toContain(`ENOSPC: no space left on device, write '${blobRoot}/`);
    expect(await storedState(t, blobRoot)).toEqual(before);
    expect(await liveBlobs(blobRoot)).toEqual([]);

    store.failing = false;
    const retried = await sendMail(t.smtpPort, message);
    expect((await t.http.get(`/api/v1/emails/${retried.id}`)).status).toBe(200);
    expect(await storedState(t, blobRoot)).toMatchObject({ emails: before.emails + 1, blobs: 2 });
  });
});

describe('SMTP when the log destination fails after the 250', () => {
  let t: TestApp;
  let failing = true;

  beforeAll(async () => {
    // A log destination that throws on the accept line, as a full disk or a closed pipe would.
    const logger = pino({ level: 'info' }, {
      write(line: string) {
        if (failing && line.includes('"message accepted"')) throw new Error('log destination closed');
      },
    });
    t = await startTestApp({ overrides: { logger } });
  });
  afterAll(() => t?.stop());

  it('answers each message once: the 250, then the next command its own reply', async () => {
    const address = (await t.http.post('/api/v1/inboxes', { prefix: 'loglost' })).json().address;
    const { client } = await RawSmtpClient.connect(t.smtpPort);
    try {
      await client.envelope('sender@example.com', [address]);
      const first = acceptedId(await client.data('Subject: one\r\n\r\nfirst\r\n'));
      expect((await client.command('RSET')).code).toBe(250);
      expect((await client.command('NOOP')).code).toBe(250);
      failing = false;
      expect((await client.command(`MAIL FROM:<sender@example.com>`)).code).toBe(250);
      expect((await client.command(`RCPT TO:<${address}>`)).code).toBe(250);
      const second = acceptedId(await client.data('Subject: two\r\n\r\nsecond\r\n'));
      expect(second).not.toBe(first);
      expect((await t.http.get(`/api/v1/emails/${first}`)).status).toBe(200);
    } finally {
      await client.quit();
    }
  });
});
