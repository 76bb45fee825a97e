import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIME_CORPUS } from '../fixtures/mime-corpus.js';
import { dovecotVersion, startDovecot, type Dovecot } from '../helpers/dovecot.js';
import { createImapInbox } from '../helpers/imap-inbox.js';
import { RawImapClient } from '../helpers/imap-raw-client.js';
import { sendRaw } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const version = dovecotVersion();
if (version === undefined) console.warn('SKIPPED: IMAP differential test against Dovecot (install dovecot-imapd to run it)');

/** What one FETCH item returns, without the sequence number around it. */
function fetchValue(untagged: string): string {
  const match = /^\* \d+ FETCH \(([\s\S]*)\)\r\n$/.exec(untagged);
  if (match === null) throw new Error(`unexpected FETCH response: ${untagged}`);
  return match[1] as string;
}

// The corpus is parsed the same way whatever the database; one dialect is enough here.
describe.skipIf(version === undefined)('IMAP responses match Dovecot for tricky MIME messages', () => {
  let t: TestApp;
  let dovecot: Dovecot;
  let ours: RawImapClient;
  let theirs: RawImapClient;

  beforeAll(async () => {
    t = await startTestApp();
    const inbox = await createImapInbox(t, 'corpus');
    const stored: Buffer[] = [];
    for (const message of MIME_CORPUS) {
      const sent = await sendRaw(t.smtpPort, { from: 'sender@example.com', to: [inbox.address] }, Buffer.from(message.raw, 'latin1'));
      const eml = await t.http.get(`/api/v1/emails/${sent.id}/eml`);
      stored.push(Buffer.from(eml.body));
    }
    dovecot = await startDovecot(stored, { certPath: join(t.dataDir, 'tls', 'self-signed.crt'), keyPath: join(t.dataDir, 'tls', 'self-signed.key') });
    ours = await RawImapClient.connect(t.addresses.imap.port);
    theirs = await RawImapClient.connect(dovecot.port);
    expect((await ours.command(`LOGIN ${inbox.address} ${inbox.key}`)).tagged).toMatch(/OK/);
    expect((await theirs.command(`LOGIN ${dovecot.user} ${dovecot.password}`)).tagged).toMatch(/OK/);
    await ours.command('EXAMINE INBOX');
    await theirs.command('EXAMINE INBOX');
  });
  afterAll(async () => {
    ours?.close();
    theirs?.close();
    await dovecot?.stop();
    await t?.stop();
  });

  MIME_CORPUS.forEach((message, index) => {
    it(`${message.name}`, async () => {
      const items = [
        'ENVELOPE',
        'BODYSTRUCTURE',
        'BODY',
        'RFC822.SIZE',
        'BODY.PEEK[]',
        'BODY.PEEK[HEADER]',
        'BODY.PEEK[TEXT]',
        'BODY.PEEK[]<5.20>',
        'RFC822.HEADER',
        ...message.sections.map((s) => `BODY.PEEK[${s}]`),
      ];
      const differences: string[] = [];
      for (const item of items) {
        const mine = fetchValue((await ours.command(`FETCH ${index + 1} (${item})`)).untagged);
        const reference = fetchValue((await theirs.command(`FETCH ${index + 1} (${item})`)).untagged);
        if (mine !== reference) differences.push(`${item}\n  mailroom: ${JSON.stringify(mine)}\n  dovecot:  ${JSON.stringify(reference)}`);
      }
      expect(differences.join('\n')).toBe('');
    });
  });
});
