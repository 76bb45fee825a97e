import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../helpers/databases.js';
import { createImapInbox, type ImapInbox } from '../helpers/imap-inbox.js';
import { RawImapClient } from '../helpers/imap-raw-client.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

if (REDIS_URL === undefined) console.warn('SKIPPED: IMAP IDLE across nodes (set MAILROOM_TEST_REDIS_URL to run it)');

// Two nodes share one database, one blob store and one Redis: mail taken by node A reaches an IMAP
// client idling on node B through the realtime bus. The storage path is the same on both dialects.
describe.runIf(REDIS_URL !== undefined)('IMAP IDLE across nodes', () => {
  let nodeA: TestApp;
  let nodeB: TestApp;
  let inbox: ImapInbox;

  beforeAll(async () => {
    const redis = { MAILROOM_REDIS_URL: REDIS_URL as string, MAILROOM_REDIS_PREFIX: `test-imap-${randomBytes(4).toString('hex')}:` };
    nodeA = await startTestApp({ env: redis });
    const db = nodeA.app.ctx.config.db;
    if (db.dialect !== 'sqlite') throw new Error('expected the default SQLite database');
    nodeB = await startTestApp({ env: { ...redis, MAILROOM_DATABASE_URL: `sqlite://${db.path}` }, overrides: { blobs: nodeA.app.ctx.blobs } });
    inbox = await createImapInbox(nodeA, 'clustered');
  });
  afterAll(async () => {
    await nodeB?.stop();
    await nodeA?.stop();
  });

  it('pushes * n EXISTS on node B within 100 ms of node A accepting the mail', async () => {
    const client = await RawImapClient.connect(nodeB.addresses.imap.port);
    try {
      expect((await client.command(`LOGIN ${inbox.address} ${inbox.key}`)).tagged).toMatch(/OK/);
      expect((await client.command('SELECT INBOX')).untagged).toContain('* 0 EXISTS');
      client.write('I1 IDLE\r\n');
      await client.readUntil((text) => text.startsWith('+ '));
      await sendMail(nodeA.smtpPort, { from: 'a@example.com', to: inbox.address, subject: 'via node A', text: 'x' });
      const acceptedAt = performance.now();
      await client.readUntil((text) => text.includes('* 1 EXISTS\r\n'));
      expect(performance.now() - acceptedAt).toBeLessThan(100);
      client.write('DONE\r\n');
      await client.readUntil((text) => text.includes('I1 OK'));
      expect((await client.command('FETCH 1 (BODY.PEEK[HEADER.FIELDS (SUBJECT)])')).untagged).toContain('Subject: via node A');
    } finally {
      client.close();
    }
  });
});
