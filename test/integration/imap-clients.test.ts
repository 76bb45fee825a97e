import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { createImapInbox, type ImapInbox } from '../helpers/imap-inbox.js';
import { RawImapClient } from '../helpers/imap-raw-client.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const run = promisify(execFile);
warnIfPostgresSkipped();

function imapflow(t: TestApp, inbox: ImapInbox, user = inbox.address): ImapFlow {
  return new ImapFlow({
    host: '127.0.0.1',
    port: t.addresses.imap.port,
    secure: true,
    tls: { rejectUnauthorized: false },
    auth: { user, pass: inbox.key },
    logger: false,
  });
}

describe.each(TEST_DIALECTS)('IMAP with real clients (%s)', (dialect) => {
  let t: TestApp;
  let inbox: ImapInbox;
  const ids: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    inbox = await createImapInbox(t, 'reader');
    ids.push(
      (await sendMail(t.smtpPort, { from: 'Alice <alice@example.com>', to: inbox.address, subject: 'Your code', text: 'Your code is 123456.', html: '<p>Your code is <b>123456</b>.</p>', attachments: [{ filename: 'notes.txt', content: 'some notes' }] })).id,
      (await sendMail(t.smtpPort, { from: 'Bob <bob@example.org>', to: inbox.address, subject: 'Second message', text: 'Nothing to see.' })).id,
    );
  });
  afterAll(() => t?.stop());

  it('imapflow logs in (address in any case), lists, selects, fetches, searches and sets \\Seen (read: true over REST)', async () => {
    const client = imapflow(t, inbox, inbox.address.toUpperCase());
    await client.connect();
    try {
      const mailboxes = await client.list();
      expect(mailboxes.map((m) => m.path)).toEqual(['INBOX']);
      const status = await client.status('INBOX', { messages: true, unseen: true, uidNext: true });
      expect(status).toMatchObject({ messages: 2, unseen: 2 });

      const mailbox = await client.mailboxOpen('INBOX');
      expect(mailbox.exists).toBe(2);
      expect(Number(mailbox.uidValidity)).toBeGreaterThan(0);

      const messages = [];
      for await (const m of client.fetch('1:*', { uid: true, flags: true, envelope: true, bodyStructure: true, internalDate: true, size: true })) messages.push(m);
      expect(messages).toHaveLength(2);
      const [first, second] = messages;
      expect(first?.uid).toBeLessThan(second?.uid as number);
      expect(first?.envelope).toMatchObject({ subject: 'Your code', from: [{ name: 'Alice', address: 'alice@example.com' }], to: [{ address: inbox.address }] });
      expect(first?.bodyStructure?.type).toBe('multipart/mixed');
      const attachmentPart = first?.bodyStructure?.childNodes?.find((n) => n.disposition === 'attachment');
      expect(attachmentPart).toMatchObject({ dispositionParameters: { filename: 'notes.txt' } });
      expect(first?.flags?.has('\\Seen')).toBe(false);

      const source = await client.fetchOne(String(first?.uid), { source: true }, { uid: true });
      const eml = await t.http.get(`/api/v1/emails/${ids[0]}/eml`);
      expect(source && source.source?.equals(eml.body)).toBe(true);

      const download = await client.download(String(first?.uid), attachmentPart?.part, { uid: true });
      let attachment = '';
      for await (const chunk of download.content ?? []) attachment += chunk;
      expect(attachment).toBe('some notes');

      const headers = await client.fetchOne('2', { headers: ['subject', 'from'] });
      expect(headers && headers.headers?.toString()).toMatch(/^Subject: Second message\r\nFrom: Bob <bob@example.org>\r\n\r\n$|^From: Bob <bob@example.org>\r\nSubject: Second message\r\n\r\n$/);

      expect(await client.search({ from: 'bob@example' }, { uid: true })).toEqual([second?.uid]);
      expect(await client.search({ subject: 'code', body: '123456' })).toEqual([1]);
      expect(await client.search({ since: new Date(Date.now() - 86_400_000) })).toEqual([1, 2]);
      expect(await client.search({ uid: `${second?.uid}:*` })).toEqual([2]);
      expect(await client.search({ seen: false })).toEqual([1, 2]);

      await client.messageFlagsAdd(String(first?.uid), ['\\Seen'], { uid: true });
      expect(await client.search({ seen: true })).toEqual([1]);
      const rest = await t.http.get(`/api/v1/emails/${ids[0]}`);
      expect(rest.json().read).toBe(true);
      await client.messageFlagsRemove(String(first?.uid), ['\\Seen'], { uid: true });
      expect((await t.http.get(`/api/v1/emails/${ids[0]}`)).json().read).toBe(false);
    } finally {
      await client.logout();
    }
  });

  it('SEARCH understands TO, TEXT, BEFORE, OR, NOT, HEADER, LARGER, UID sets and refuses unknown charsets', async () => {
    const client = await RawImapClient.connect(t.addresses.imap.port);
    const search = async (criteria: string) => (await client.command(`SEARCH ${criteria}`)).untagged.trim();
    try {
      await client.command(`LOGIN ${inbox.address} ${inbox.key}`);
      await client.command('EXAMINE INBOX');
      expect(await search(`TO ${inbox.address.toUpperCase()}`)).toMatch(/^\* SEARCH 1 2/);
      expect(await search('TEXT "nothing to see"')).toBe('* SEARCH 2');
      expect(await search('BEFORE 1-Jan-2000')).toBe('* SEARCH');
      expect(await search('OR FROM alice SUBJECT second')).toMatch(/^\* SEARCH 1 2/);
      expect(await search('NOT FROM alice')).not.toMatch(/^\* SEARCH 1\b/);
      expect(await search('HEADER Subject "your CODE"')).toBe('* SEARCH 1');
      expect(await search('LARGER 100000')).toBe('* SEARCH');
      expect(await search('1:2 UNDELETED')).toBe('* SEARCH 1 2');
      const uids = (await client.command('UID SEARCH 1:2')).untagged.trim().split(' ').slice(2);
      expect((await client.command(`SEARCH UID ${uids[1]}`)).untagged.trim()).toBe('* SEARCH 2');
      expect((await client.command('SEARCH CHARSET KOI8-R FROM x')).tagged).toMatch(/NO \[BADCHARSET/);
      expect((await client.command('SEARCH FROBNICATE')).tagged).toMatch(/BAD/);
    } finally {
      client.close();
    }
  });

  it('streams a large message (BODY[], attachment part, partial) byte for byte', async () => {
    const big = await createImapInbox(t, 'bigmail');
    // Over 1 MB of EML: served as streamed ranges of the blob, not read whole.
    const payload = Buffer.alloc(1024 * 1024, 'abcdefghijklmnopqrstuvwxyz0123456789');
    const sent = await sendMail(t.smtpPort, { from: 'a@example.com', to: big.address, subject: 'Large', text: 'see attachment', attachments: [{ filename: 'big.bin', content: payload }] });
    const eml = (await t.http.get(`/api/v1/emails/${sent.id}/eml`)).body;
    expect(eml.length).toBeGreaterThan(1024 * 1024);
    const client = imapflow(t, big);
    await client.connect();
    try {
      await client.mailboxOpen('INBOX');
      const whole = await client.fetchOne('1', { source: true, bodyStructure: true, size: true });
      expect(whole && whole.size).toBe(eml.length);
      expect(whole && whole.source?.equals(eml)).toBe(true);
      const download = await client.download('1', '2');
      const chunks: Buffer[] = [];
      for await (const chunk of download.content ?? []) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).equals(payload)).toBe(true);
      const part = await client.fetchOne('1', { bodyParts: ['2'] });
      const encoded = part && part.bodyParts?.get('2');
      expect(Buffer.from(encoded?.toString() ?? '', 'base64').equals(payload)).toBe(true);
    } finally {
      await client.logout();
    }
    const raw = await RawImapClient.connect(t.addresses.imap.port);
    try {
      await raw.command(`LOGIN ${big.address} ${big.key}`);
      await raw.command('EXAMINE INBOX');
      const partial = await raw.command('FETCH 1 (BODY.PEEK[2]<1000.64>)');
      expect(partial.untagged).toMatch(/^\* 1 FETCH \(BODY\[2\]<1000> \{64\}\r\n[A-Za-z0-9+/\r\n]{64}\)\r\n$/);
      const wholePart = await raw.command('FETCH 1 (BODY.PEEK[2])');
      expect(wholePart.untagged).toContain(partial.untagged.slice(partial.untagged.indexOf('}\r\n') + 3, -3));
    } finally {
      raw.close();
    }
  });

  it('imapflow sees new mail while it IDLEs', async () => {
    const client = imapflow(t, inbox);
    await client.connect();
    try {
      await client.mailboxOpen('INBOX');
      const before = client.mailbox === false ? 0 : client.mailbox.exists;
      const announced = new Promise<number>((resolve) => client.on('exists', (data: { count: number }) => resolve(data.count)));
      const idling = client.idle();
      await sendMail(t.smtpPort, { from: 'carol@example.com', to: inbox.address, subject: 'Pushed', text: 'new mail' });
      expect(await announced).toBe(before + 1);
      await client.noop();
      await idling;
    } finally {
      await client.logout();
    }
  });

  it('IDLE pushes * n EXISTS within 100 ms of the SMTP 250, then REST read and delete changes', async () => {
    const other = await createImapInbox(t, 'idler');
    const client = await RawImapClient.connect(t.addresses.imap.port);
    try {
      await client.command(`LOGIN ${other.address} ${other.key}`);
      await client.command('SELECT INBOX');
      client.write('I1 IDLE\r\n');
      await client.readUntil((text) => text.startsWith('+ '));
      const sent = await sendMail(t.smtpPort, { from: 'erin@example.com', to: other.address, subject: 'Timed', text: 'x' });
      const acceptedAt = performance.now();
      await client.readUntil((text) => text.includes('* 1 EXISTS\r\n'));
      expect(performance.now() - acceptedAt).toBeLessThan(100);
      // Changes made over REST reach the idling client too: the read flag, then the deletion.
      await t.http.patch(`/api/v1/emails/${sent.id}/read`);
      expect(await client.readUntil((text) => text.includes('FLAGS'))).toMatch(/^\* 1 FETCH \(UID \d+ FLAGS \(\\Seen\)\)\r\n$/);
      expect((await t.http.delete(`/api/v1/emails/${sent.id}`)).status).toBe(204);
      expect(await client.readUntil((text) => text.includes('EXPUNGE'))).toBe('* 1 EXPUNGE\r\n');
      client.write('DONE\r\n');
      await client.readUntil((text) => text.includes('I1 OK'));
    } finally {
      client.close();
    }
  });

  it("Python's imaplib logs in, searches, fetches RFC822 and stores \\Seen", async () => {
    const other = await createImapInbox(t, 'python');
    const sent = await sendMail(t.smtpPort, { from: 'dave@example.com', to: other.address, subject: 'imaplib check', text: 'Hello from SMTP' });
    const { stdout } = await run('python3', [join(import.meta.dirname, '../scripts/imaplib_session.py'), String(t.addresses.imap.port), other.address, other.key]);
    const seen = JSON.parse(stdout);
    expect(seen).toMatchObject({ login: 'OK', exists: 1, unseen: ['1'], subject_search: ['1'], close: 'OK', logout: 'BYE', seen_after_store: ['1'] });
    expect(seen.list).toEqual(['(\\HasNoChildren) "/" INBOX']);
    expect(seen.rfc822).toContain('Subject: imaplib check');
    expect(seen.rfc822).toContain('Hello from SMTP');
    expect(seen.subject_header).toBe('Subject: imaplib check\r\n\r\n');
    expect(seen.uid_fetch[0]).toMatch(/^1 \(UID \d+ FLAGS \(\) RFC822\.SIZE \d+\)$/);
    expect(seen.store[0]).toMatch(/FLAGS \(\\Seen\)/);
    expect((await t.http.get(`/api/v1/emails/${sent.id}`)).json().read).toBe(true);
  });

  it('curl fetches a message over imaps:// (SASL-IR AUTHENTICATE PLAIN)', async () => {
    const client = imapflow(t, inbox);
    await client.connect();
    const lock = await client.getMailboxLock('INBOX');
    const [uid] = (await client.search({ all: true }, { uid: true })) || [];
    lock.release();
    await client.logout();
    const url = `imaps://127.0.0.1:${t.addresses.imap.port}/INBOX;UID=${uid}`;
    const { stdout } = await run('curl', ['-sS', '-k', '--max-time', '10', '-u', `${inbox.address}:${inbox.key}`, url]);
    expect(stdout).toContain('Subject: Your code');
    expect(stdout).toContain('Your code is 123456.');
    const listing = await run('curl', ['-sS', '-k', '--max-time', '10', '-u', `${inbox.address}:${inbox.key}`, `imaps://127.0.0.1:${t.addresses.imap.port}/`]);
    expect(listing.stdout.trim()).toBe('* LIST (\\HasNoChildren) "/" INBOX');
  });
});
