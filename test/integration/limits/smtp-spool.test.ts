import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DiskBlobStore } from '../../../src/adapters/blobs/disk.blob-store.js';
import { bigMessage } from '../../helpers/big-message.js';
import { eventually } from '../../helpers/eventually.js';
import { HttpClient } from '../../helpers/http-client.js';
import { listenerEnv, nodeCertificate, spawnMailroom } from '../../helpers/mailroom-process.js';
import { sendRaw, type SendResult } from '../../helpers/smtp-client.js';
import { startTestApp } from '../../helpers/test-app.js';

const MB = 1024 * 1024;
const MESSAGES = 20;
const IN_FLIGHT_CAP = 128 * MB;

/** kB figures from /proc/<pid>/status: VmHWM is the peak resident set since the process started. */
async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** As a sending MTA does: a 4xx reply is retried after a pause, a 5xx is final. */
async function sendWithRetries(port: number, to: string, raw: Buffer, retries: { count: number }): Promise<SendResult> {
  for (;;) {
    try {
      return await sendRaw(port, { from: 'sender@example.com', to: [to] }, raw);
    } catch (error) {
      const response = String((error as { response?: string }).response);
      if (!/^4\d\d /.test(response)) throw error;
      expect(response).toMatch(/^451 4\.3\.1 /);
      retries.count += 1;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** Memory does not depend on the database: one dialect is enough. */
describe('SMTP: large messages are spooled to disk, not held in memory', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it(`accepts ${MESSAGES} concurrent 25 MB messages from nodemailer with the server's peak RSS bounded by the in-flight cap`, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mailroom-spool-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const setup = await startTestApp({ dialect: 'sqlite', dataDir, keepDataDir: true });
    const address = (await setup.http.post('/api/v1/inboxes', {})).json().address as string;
    const apiKey = setup.tenant.apiKey;
    await setup.stop();

    const listeners = await listenerEnv();
    const node = spawnMailroom({
      ...listeners,
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_DNS_SERVERS: '127.0.0.1:9',
      MAILROOM_DNS_TIMEOUT_MS: '200',
      MAILROOM_SMTP_MAX_IN_FLIGHT_BYTES: String(IN_FLIGHT_CAP),
      MAILROOM_SMTP_MIN_DATA_RATE: '0',
    });
    cleanups.push(async () => node.child.kill('SIGKILL'));
    await node.logged('mailroom started');
    const pid = node.child.pid as number;

    const messages = Array.from({ length: MESSAGES }, (_, n) => bigMessage(address, n));
    expect(messages[0]!.length).toBeGreaterThan(24 * MB);
    const before = await memoryOf(pid);
    const retries = { count: 0 };
    const results = await Promise.all(messages.map((raw) => sendWithRetries(Number(listeners.MAILROOM_SMTP_PORT), address, raw, retries)));
    const after = await memoryOf(pid);
    console.log(
      `spooled: ${MESSAGES} × ${Math.round(messages[0]!.length / MB)} MB accepted (${retries.count} retries after 451) under a ${IN_FLIGHT_CAP / MB} MB in-flight cap; ` +
        `server RSS ${Math.round(before.rss / MB)} MB at start, peak ${Math.round(after.peak / MB)} MB`,
    );

    expect(new Set(results.map((r) => r.id)).size).toBe(MESSAGES);
    // Only messages holding their share of the cap are in memory (analysis reads each one whole and
    // parses it: about three working copies), plus the sockets' buffers. Before spooling, the same
    // load under a 200 MB cap raised RSS by about 0.9 GB; unbounded, by 2.9 GB.
    expect(after.peak - before.rss).toBeLessThan(4 * IN_FLIGHT_CAP);
    // A spool file is removed just after its 250 goes out.
    await eventually(async () => ((await readdir(join(dataDir, 'spool'))).length === 0 ? true : undefined), 'spool files to be removed');

    const http = new HttpClient(`https://localhost:${listeners.MAILROOM_HTTP_PORT}`, await nodeCertificate(dataDir), apiKey);
    const listed = (await http.get('/api/v1/emails?perPage=100')).json() as { data: Array<{ id: string; subject: string }> };
    expect(listed.data).toHaveLength(MESSAGES);
    const sample = listed.data.find((email) => email.subject === 'big 7')!;
    const eml = (await http.get(`/api/v1/emails/${sample.id}/eml`)).body;
    expect(eml.length).toBe(messages[7]!.length);
    expect(eml.equals(messages[7]!)).toBe(true);
  }, 600_000);
});

/** A disk store whose every write fails, as an unreachable object store's does. */
class FailingWrites extends DiskBlobStore {
  override async put(): Promise<string> {
    throw new Error('connect ECONNREFUSED 127.0.0.1:9000');
  }

  override async putFile(): Promise<string> {
    throw new Error('connect ECONNREFUSED 127.0.0.1:9000');
  }
}

/** The pid of a process that has exited (its spool files are leftovers). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid as number;
}

describe('SMTP spool files: removed on failure and on restart', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it("removes a dead process's spool files at start, keeps a running one's, and removes the file of a message that could not be stored", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mailroom-spool-clean-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const spoolDir = join(dataDir, 'spool');
    await mkdir(spoolDir, { recursive: true });
    const leftover = `${await deadPid()}-${randomUUID()}.eml`;
    const otherNode = `${process.ppid}-${randomUUID()}.eml`;
    await writeFile(join(spoolDir, leftover), 'half a message');
    await writeFile(join(spoolDir, otherNode), 'another node is receiving this');

    const blobs = new FailingWrites(join(dataDir, 'blobs'));
    const t = await startTestApp({ dialect: 'sqlite', dataDir, keepDataDir: true, overrides: { blobs }, env: { MAILROOM_SMTP_SPOOL_THRESHOLD_BYTES: '1024' } });
    cleanups.push(() => t.stop());
    expect(await readdir(spoolDir)).toEqual([otherNode]);

    const address = (await t.http.post('/api/v1/inboxes', {})).json().address as string;
    const raw = Buffer.from(`From: sender@example.com\r\nTo: ${address}\r\nSubject: spooled\r\n\r\n${'x'.repeat(64 * 1024)}\r\n`);
    const refused = await sendRaw(t.smtpPort, { from: 'sender@example.com', to: [address] }, raw).catch((error: { response?: string }) => error);
    expect(String((refused as { response?: string }).response)).toMatch(/^451 /);
    await eventually(async () => ((await readdir(spoolDir)).length === 1 ? true : undefined), 'the refused message’s spool file to be removed');
    expect(await readdir(spoolDir)).toEqual([otherNode]);
    expect((await t.http.get('/api/v1/emails')).json().data).toEqual([]);
  });
});
