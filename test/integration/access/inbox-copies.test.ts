import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../../helpers/databases.js';
import { createImapInbox, type ImapInbox } from '../../helpers/imap-inbox.js';
import { sendMail } from '../../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

warnIfPostgresSkipped();
const run = promisify(execFile);

/** STORE +FLAGS \\Deleted and EXPUNGE on every message, with Python's imaplib. */
async function expungeAll(t: TestApp, inbox: ImapInbox): Promise<{ exists: number; expunge: string; exists_after: number }> {
  const { stdout } = await run('python3', [join(import.meta.dirname, '../../scripts/imaplib_expunge.py'), String(t.addresses.imap.port), inbox.address, inbox.key]);
  return JSON.parse(stdout);
}

function imapflow(t: TestApp, inbox: ImapInbox): ImapFlow {
  return new ImapFlow({ host: '127.0.0.1', port: t.addresses.imap.port, secure: true, tls: { rejectUnauthorized: false }, auth: { user: inbox.address, pass: inbox.key }, logger: false });
}

/** One message to inboxes A and B (both blind copies): each inbox-scoped key owns only its inbox's copy. */
describe.each(TEST_DIALECTS)('inbox-scoped keys and shared messages (%s)', (dialect) => {
  let t: TestApp;
  let a: ImapInbox;
  let b: ImapInbox;
  let emailId: string;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    a = await createImapInbox(t, 'copy-a', ['api', 'imap']);
    b = await createImapInbox(t, 'copy-b', ['api', 'imap']);
    emailId = (await sendMail(t.smtpPort, { envelope: { from: 'sender@example.com', to: [a.address, b.address] }, from: 'sender@example.com', to: 'list@example.com', subject: 'Shared', text: 'to both' })).id;
  });
  afterAll(() => t?.stop());

  it("A's key sees only its own address in bcc (REST and IMAP SEARCH); the account key sees both", async () => {
    expect((await t.http.get(`/api/v1/emails/${emailId}`)).json().bcc).toEqual(expect.arrayContaining([a.address, b.address]));
    const asA = t.client(a.key);
    expect((await asA.get(`/api/v1/emails/${emailId}`)).json().bcc).toEqual([a.address]);
    const listed = (await asA.get('/api/v1/emails')).json().data as Array<{ id: string; bcc: string[] }>;
    expect(listed.find((e) => e.id === emailId)?.bcc).toEqual([a.address]);
    expect((await asA.get(`/api/v1/emails?to=${encodeURIComponent(b.address)}`)).json().data).toEqual([]);

    const client = imapflow(t, a);
    await client.connect();
    try {
      await client.mailboxOpen('INBOX');
      expect(await client.search({ bcc: b.address })).toEqual([]);
      expect(await client.search({ bcc: a.address })).toEqual([1]);
    } finally {
      await client.logout();
    }
  });

  it("EXPUNGE with A's key removes A's copy only; B keeps the message; B's EXPUNGE then deletes the email", async () => {
    expect(await expungeAll(t, a)).toMatchObject({ exists: 1, expunge: 'OK', exists_after: 0 });
    expect((await t.http.get(`/api/v1/inboxes/${a.id}/messages`)).json().data).toEqual([]);
    expect((await t.http.get(`/api/v1/inboxes/${b.id}/messages`)).json().data.map((m: { emailId: string }) => m.emailId)).toEqual([emailId]);
    expect((await t.client(a.key).get(`/api/v1/emails/${emailId}`)).status).toBe(404);
    const asB = t.client(b.key);
    expect((await asB.get(`/api/v1/emails/${emailId}`)).status).toBe(200);
    expect((await asB.get(`/api/v1/emails/${emailId}/eml`)).text).toContain('to both');

    expect(await expungeAll(t, b)).toMatchObject({ exists: 1, expunge: 'OK', exists_after: 0 });
    expect((await t.http.get(`/api/v1/emails/${emailId}`)).status).toBe(404);
  });
});
