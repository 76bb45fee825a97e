import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createImapInbox, type ImapInbox } from '../helpers/imap-inbox.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const run = promisify(execFile);
const MBSYNC = '/usr/bin/mbsync';
const FETCHMAIL = '/usr/bin/fetchmail';
for (const [tool, path] of [['mbsync (isync)', MBSYNC], ['fetchmail', FETCHMAIL]]) {
  if (!existsSync(path as string)) console.warn(`SKIPPED: IMAP test with ${tool} (apt-get install ${tool === 'fetchmail' ? 'fetchmail' : 'isync'})`);
}

// Debian's own IMAP clients, each once, over TLS with certificate checks against the service certificate.
describe('IMAP with Debian mail clients', () => {
  let t: TestApp;
  let inbox: ImapInbox;
  let work: string;
  let certificate: string;

  beforeAll(async () => {
    t = await startTestApp();
    inbox = await createImapInbox(t, 'debian');
    await sendMail(t.smtpPort, { from: 'alice@example.com', to: inbox.address, subject: 'First for mbsync', text: 'one' });
    await sendMail(t.smtpPort, { from: 'bob@example.com', to: inbox.address, subject: 'Second for mbsync', text: 'two' });
    work = await mkdtemp(join(tmpdir(), 'mailroom-imap-clients-'));
    certificate = join(t.dataDir, 'tls', 'self-signed.crt');
  });
  afterAll(async () => {
    await t?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it.runIf(existsSync(MBSYNC))('mbsync pulls INBOX into a maildir', async () => {
    const maildir = join(work, 'maildir');
    const config = join(work, 'mbsyncrc');
    await mkdir(maildir);
    await writeFile(
      config,
      [
        'IMAPAccount mailroom',
        'Host localhost',
        `Port ${t.addresses.imap.port}`,
        `User ${inbox.address}`,
        `Pass ${inbox.key}`,
        'SSLType IMAPS',
        `CertificateFile ${certificate}`,
        '',
        'IMAPStore remote',
        'Account mailroom',
        '',
        'MaildirStore local',
        `Path ${maildir}/`,
        `Inbox ${maildir}/INBOX`,
        '',
        'Channel inbox',
        'Far :remote:',
        'Near :local:',
        'Patterns INBOX',
        'Sync Pull',
        'Create Near',
        `SyncState ${work}/`,
        '',
      ].join('\n'),
    );
    await run(MBSYNC, ['-c', config, '-a'], { timeout: 20_000 });
    const files = [...(await readdir(join(maildir, 'INBOX', 'new'))), ...(await readdir(join(maildir, 'INBOX', 'cur')))];
    expect(files).toHaveLength(2);
    const contents = await Promise.all(files.map(async (f) => readFile(join(maildir, 'INBOX', existsSync(join(maildir, 'INBOX', 'new', f)) ? 'new' : 'cur', f), 'utf8')));
    expect(contents.join('\n')).toContain('Subject: First for mbsync');
    expect(contents.join('\n')).toContain('Subject: Second for mbsync');
  });

  it.runIf(existsSync(FETCHMAIL))('fetchmail downloads the messages and marks them \\Seen', async () => {
    const other = await createImapInbox(t, 'fetchmail');
    const sent = await sendMail(t.smtpPort, { from: 'carol@example.com', to: other.address, subject: 'For fetchmail', text: 'three' });
    const output = join(work, 'fetched.mbox');
    const rc = join(work, 'fetchmailrc');
    await writeFile(
      rc,
      [
        'set no syslog',
        `poll localhost protocol IMAP port ${t.addresses.imap.port}`,
        `  user "${other.address}" password "${other.key}"`,
        `  ssl sslcertck sslcertfile "${certificate}"`,
        '  keep',
        `  mda "cat >> ${output}"`,
        '',
      ].join('\n'),
    );
    await chmod(rc, 0o600);
    await run(FETCHMAIL, ['-f', rc, '--nodetach', '--pidfile', join(work, 'fetchmail.pid'), '-i', join(work, 'fetchids')], { timeout: 20_000, env: { ...process.env, HOME: work } });
    expect(await readFile(output, 'utf8')).toContain('Subject: For fetchmail');
    expect((await t.http.get(`/api/v1/emails/${sent.id}`)).json().read).toBe(true);
  });
});
