import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/core/api-key.js';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { createImapInbox, type ImapInbox } from '../helpers/imap-inbox.js';
import { RawImapClient } from '../helpers/imap-raw-client.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

const AUTH_FAILED = /^T\d+ NO \[AUTHENTICATIONFAILED\]/;

describe.each(TEST_DIALECTS)('IMAP refusals (%s)', (dialect) => {
  let t: TestApp;
  let inbox: ImapInbox;
  let other: ImapInbox;
  const clients: RawImapClient[] = [];

  const connect = async () => {
    const client = await RawImapClient.connect(t.addresses.imap.port);
    clients.push(client);
    return client;
  };
  const loggedIn = async (who: ImapInbox = inbox, select = true) => {
    const client = await connect();
    expect((await client.command(`LOGIN ${who.address} ${who.key}`)).tagged).toMatch(/^T\d+ OK/);
    if (select) expect((await client.command('SELECT INBOX')).tagged).toMatch(/OK \[READ-WRITE\]/);
    return client;
  };
  const login = async (user: string, password: string) => (await (await connect()).command(`LOGIN "${user}" "${password}"`)).tagged;
  const insertKey = async (target: ImapInbox, fields: { scopes?: Array<'api' | 'imap'>; active?: boolean; expiresAt?: string | null }) => {
    const generated = generateApiKey();
    await t.app.ctx.repos.apiKeys.insert({
      id: randomUUID(),
      tenantId: t.tenant.id,
      name: 'test',
      prefix: generated.prefix,
      keyHash: generated.hash,
      active: fields.active ?? true,
      environmentId: null,
      inboxId: target.id,
      scopes: fields.scopes ?? ['imap'],
      lastUsedAt: null,
      expiresAt: fields.expiresAt ?? null,
      createdAt: new Date().toISOString(),
    });
    return generated.key;
  };

  beforeAll(async () => {
    t = await startTestApp({
      dialect,
      env: { MAILROOM_IMAP_AUTH_FAILURES_PER_ADDRESS: '3', MAILROOM_IMAP_AUTH_FAILURES_PER_IP: '1000', MAILROOM_IMAP_MAX_CONNECTIONS_PER_INBOX: '3' },
    });
    inbox = await createImapInbox(t, 'guarded');
    other = await createImapInbox(t, 'neighbour');
    await sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, subject: 'one', text: 'first' });
  });
  // Connections count against the per-inbox limit until the server sees them go: close them after each test.
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.logout();
  });
  afterAll(() => t?.stop());

  describe('login', () => {
    it('refuses a wrong password, an unknown address and wildcard usernames', async () => {
      const target = await createImapInbox(t, 'wrongpassword');
      expect(await login(target.address, 'mr_wrong')).toMatch(AUTH_FAILED);
      expect(await login(`nobody@${t.app.ctx.config.mailDomain}`, inbox.key)).toMatch(AUTH_FAILED);
      expect(await login(`*@${t.app.ctx.config.mailDomain}`, inbox.key)).toMatch(AUTH_FAILED);
      expect(await login('%', inbox.key)).toMatch(AUTH_FAILED);
    });

    it('refuses a key bound to another inbox, and a tenant-level key', async () => {
      const target = await createImapInbox(t, 'wrongkey');
      expect(await login(target.address, other.key)).toMatch(AUTH_FAILED);
      expect(await login(target.address, t.tenant.apiKey)).toMatch(AUTH_FAILED);
    });

    it('refuses a key without the imap scope, a deactivated key and an expired key', async () => {
      const target = await createImapInbox(t, 'badkeys');
      expect(await login(target.address, await insertKey(target, { scopes: ['api'] }))).toMatch(AUTH_FAILED);
      expect(await login(target.address, await insertKey(target, { active: false }))).toMatch(AUTH_FAILED);
      expect(await login(target.address, await insertKey(target, { expiresAt: new Date(Date.now() - 1000).toISOString() }))).toMatch(AUTH_FAILED);
    });

    it('refuses AUTHENTICATE PLAIN with bad credentials, an authzid of someone else and other mechanisms', async () => {
      const client = await connect();
      const target = await createImapInbox(t, 'saslrefused');
      const plain = (authz: string, user: string, pass: string) => Buffer.from(`${authz}\0${user}\0${pass}`).toString('base64');
      expect((await client.command(`AUTHENTICATE PLAIN ${plain('', target.address, 'mr_bad')}`)).tagged).toMatch(AUTH_FAILED);
      expect((await client.command(`AUTHENTICATE PLAIN ${plain(other.address, target.address, target.key)}`)).tagged).toMatch(AUTH_FAILED);
      expect((await client.command('AUTHENTICATE CRAM-MD5')).tagged).toMatch(/^T\d+ NO \[CANNOT\]/);
    });

    it('accepts LOGIN with literals ({n} and {n+}) and AUTHENTICATE PLAIN with a continuation', async () => {
      const client = await connect();
      client.write(`L1 LOGIN {${inbox.address.length}}\r\n`);
      await client.readUntil((text) => text.startsWith('+ '));
      client.write(`${inbox.address} {${inbox.key.length}+}\r\n${inbox.key}\r\n`);
      expect(await client.readUntil((text) => text.includes('L1 '))).toMatch(/L1 OK/);

      const second = await connect();
      second.write('A1 AUTHENTICATE PLAIN\r\n');
      await second.readUntil((text) => text.startsWith('+ '));
      second.write(`${Buffer.from(`\0${inbox.address}\0${inbox.key}`).toString('base64')}\r\n`);
      expect(await second.readUntil((text) => text.includes('A1 '))).toMatch(/A1 OK/);
    });

    it('limits failures per address: after the limit even the right key is refused for a while', async () => {
      const target = await createImapInbox(t, 'bruteforced');
      for (let i = 0; i < 3; i++) expect(await login(target.address, `mr_guess${i}`)).toMatch(AUTH_FAILED);
      expect(await login(target.address, target.key)).toMatch(/NO \[AUTHENTICATIONFAILED\] Too many failed logins/);
      // Other addresses from the same IP are not affected by this address's limit.
      expect(await login(other.address, other.key)).toMatch(/^T\d+ OK/);
      // The throttle is per (address, client IP): the owner's client on another IP still logs in.
      const elsewhere = await RawImapClient.connect(t.addresses.imap.port, '127.0.0.1', '127.0.0.2');
      clients.push(elsewhere);
      expect((await elsewhere.command(`LOGIN "${target.address}" "${target.key}"`)).tagged).toMatch(/^T\d+ OK/);
    });

    it('limits connections per inbox with NO [LIMIT]', async () => {
      const target = await createImapInbox(t, 'popular');
      const open = [await loggedIn(target, false), await loggedIn(target, false), await loggedIn(target, false)];
      expect(await login(target.address, target.key)).toMatch(/^T\d+ NO \[LIMIT\]/);
      open[0]?.close();
      await expect.poll(async () => login(target.address, target.key)).toMatch(/^T\d+ OK/);
    });

    it('answers commands that need a login with BAD, and garbage with BAD', async () => {
      const client = await connect();
      expect((await client.command('SELECT INBOX')).tagged).toMatch(/^T\d+ BAD/);
      expect((await client.command('FROBNICATE')).tagged).toMatch(/^T\d+ BAD Unknown command/);
      expect((await client.command('LOGIN "unterminated')).tagged).toMatch(/^T\d+ BAD/);
      client.write('*bad*\r\n');
      expect(await client.readUntil((text) => text.endsWith('\r\n'))).toMatch(/^\* BAD/);
    });
  });

  describe('mailboxes', () => {
    it('lists INBOX alone for *, % (quoted or not) and answers LIST "" "" with the delimiter', async () => {
      const client = await loggedIn(inbox, false);
      for (const pattern of ['*', '%', '"*"', '"%"', '"INBOX"', 'inbox']) {
        expect((await client.command(`LIST "" ${pattern}`)).untagged).toBe('* LIST (\\HasNoChildren) "/" INBOX\r\n');
      }
      expect((await client.command('LSUB "" *')).untagged).toBe('* LSUB () "/" INBOX\r\n');
      expect((await client.command('LIST "" ""')).untagged).toBe('* LIST (\\Noselect) "/" ""\r\n');
      expect((await client.command('LIST "" "Sent*"')).untagged).toBe('');
    });

    it('refuses SELECT, EXAMINE and STATUS of other mailboxes with NO [NONEXISTENT]', async () => {
      const client = await loggedIn(inbox, false);
      expect((await client.command('SELECT Sent')).tagged).toMatch(/^T\d+ NO \[NONEXISTENT\]/);
      expect((await client.command('EXAMINE "INBOX/Sub"')).tagged).toMatch(/^T\d+ NO \[NONEXISTENT\]/);
      expect((await client.command('STATUS Trash (MESSAGES)')).tagged).toMatch(/^T\d+ NO \[NONEXISTENT\]/);
      expect((await client.command('SELECT inbox')).tagged).toMatch(/OK \[READ-WRITE\]/);
    });

    it('refuses CREATE, DELETE, RENAME, APPEND, COPY and MOVE with NO [CANNOT]', async () => {
      const client = await loggedIn();
      for (const command of ['CREATE Sent', 'DELETE INBOX', 'RENAME INBOX Old', 'COPY 1 Trash', 'MOVE 1 Trash', 'UID COPY 1:* Trash', 'UID MOVE 1:* Trash']) {
        expect((await client.command(command)).tagged).toMatch(/^T\d+ NO \[CANNOT\]/);
      }
      // APPEND is refused before the client sends its message (no continuation), and with LITERAL+ after it.
      client.write('P1 APPEND INBOX (\\Seen) {20}\r\n');
      expect(await client.readUntil((text) => text.includes('\r\n'))).toMatch(/^P1 NO \[CANNOT\]/);
      client.write('P2 APPEND INBOX {5+}\r\nhello\r\n');
      expect(await client.readUntil((text) => text.includes('\r\n'))).toMatch(/^P2 NO \[CANNOT\]/);
      expect((await client.command('NOOP')).tagged).toMatch(/OK/);
    });

    it('refuses EXPUNGE and CLOSE for a key without the api scope; STORE in EXAMINE mode is refused', async () => {
      const client = await loggedIn();
      expect((await client.command('STORE 1 +FLAGS (\\Deleted)')).untagged).toBe('* 1 FETCH (FLAGS (\\Deleted))\r\n');
      expect((await client.command('EXPUNGE')).tagged).toMatch(/^T\d+ NO \[NOPERM\]/);
      expect((await client.command('UID EXPUNGE 1:*')).tagged).toMatch(/^T\d+ NO \[NOPERM\]/);
      expect((await client.command('CLOSE')).tagged).toMatch(/^T\d+ NO \[NOPERM\]/);
      expect((await client.command('EXAMINE INBOX')).untagged).toContain('* 1 EXISTS');
      expect((await client.command('STORE 1 +FLAGS (\\Seen)')).tagged).toMatch(/^T\d+ NO \[READ-ONLY\]/);
    });

    it('deletes over EXPUNGE with a key that also has the api scope, as the REST API does', async () => {
      const target = await createImapInbox(t, 'cleaner', ['imap', 'api']);
      const first = await sendMail(t.smtpPort, { from: 'a@example.com', to: target.address, subject: 'keep', text: 'x' });
      const second = await sendMail(t.smtpPort, { from: 'a@example.com', to: target.address, subject: 'drop', text: 'y' });
      const client = await loggedIn(target);
      await client.command('STORE 2 +FLAGS.SILENT (\\Deleted)');
      expect((await client.command('EXPUNGE')).untagged).toBe('* 2 EXPUNGE\r\n');
      expect((await t.http.get(`/api/v1/emails/${second.id}`)).status).toBe(404);
      expect((await t.http.get(`/api/v1/emails/${first.id}`)).status).toBe(200);
      expect((await client.command('FETCH 1:* (FLAGS)')).untagged).toBe('* 1 FETCH (FLAGS ())\r\n');
    });
  });
});

describe('IMAP limits per IP and idle timeout', () => {
  let t: TestApp;
  let inbox: ImapInbox;

  beforeAll(async () => {
    t = await startTestApp({ env: { MAILROOM_IMAP_AUTH_FAILURES_PER_IP: '2', MAILROOM_IMAP_IDLE_TIMEOUT_MS: '300' } });
    inbox = await createImapInbox(t, 'timed');
  });
  afterAll(() => t?.stop());

  it('logs an inactive client out with BYE', async () => {
    const client = await RawImapClient.connect(t.addresses.imap.port);
    await client.command(`LOGIN ${inbox.address} ${inbox.key}`);
    expect(await client.readUntil((text) => text.includes('* BYE'), 3000)).toMatch(/^\* BYE Autologout/);
    client.close();
  });

  it('refuses every login from an IP after too many failures there', async () => {
    const client = await RawImapClient.connect(t.addresses.imap.port);
    expect((await client.command(`LOGIN a@${t.app.ctx.config.mailDomain} mr_x`)).tagged).toMatch(AUTH_FAILED);
    expect((await client.command(`LOGIN b@${t.app.ctx.config.mailDomain} mr_y`)).tagged).toMatch(AUTH_FAILED);
    expect((await client.command(`LOGIN ${inbox.address} ${inbox.key}`)).tagged).toMatch(/NO \[AUTHENTICATIONFAILED\] Too many failed logins/);
    client.close();
  });
});
