import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { freePort, spawnMailroom, type MailroomProcess } from '../helpers/mailroom-process.js';
import { VERSION } from '../../src/version.js';
import { ensureWebBuilt } from '../browser/browser-kit.js';

const sh = promisify(execFile);

const HELP_INVOCATIONS = [
  ['--help'],
  ['-h'],
  ['help'],
  ['serve', '--help'],
  ['local', '-h'],
  ['migrate', '--help'],
  ['tenant', '--help'],
  ['tenant', 'create', '--help'],
  ['tenant', 'list', '-h'],
  ['tenant', 'set-plan', '--help'],
  ['tenant', 'set-limits', '--help'],
  ['tenant', 'set-retention', '--help'],
  ['tenant', 'create-key', '--help'],
  ['user', 'create', '--help'],
  ['doctor', '--help'],
  ['plans', '--help'],
  ['settings', '-h'],
];

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Runs `work` over `items`, `width` at a time: each CLI run is a Node process on a shared machine. */
async function inBatches<T, R>(items: T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += width) results.push(...(await Promise.all(items.slice(i, i + width).map(work))));
  return results;
}

describe('CLI hygiene', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mailroom-cli-help-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('prints usage and exits 0 for --help and -h on every command, starting nothing', async () => {
    const dataDir = join(dir, 'never-created');
    const ports = { http: await freePort(), smtp: await freePort(), imap: await freePort() };
    const env = { MAILROOM_DATA_DIR: dataDir, MAILROOM_HTTP_PORT: String(ports.http), MAILROOM_SMTP_PORT: String(ports.smtp), MAILROOM_IMAP_PORT: String(ports.imap) };
    const results = await inBatches(HELP_INVOCATIONS, 3, async (args) => ({ args, result: await runCli(args, env) }));
    for (const { args, result } of results) {
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stdout, args.join(' ')).toMatch(/^Usage/);
    }
    const tenantCreate = results.find(({ args }) => args.join(' ') === 'tenant create --help')?.result as CliResult;
    expect(tenantCreate.stdout).toContain('tenant create --name N');
    expect(existsSync(dataDir)).toBe(false);
    for (const port of Object.values(ports)) expect(await bindable(port)).toBe(true);
  }, 180_000);

  it('prints the version, and refuses a bare command or stray arguments without starting', async () => {
    const dataDir = join(dir, 'bare');
    const [version, bare, stray] = await Promise.all([runCli(['--version'], {}), runCli([], { MAILROOM_DATA_DIR: dataDir }), runCli(['serve', 'now'], { MAILROOM_DATA_DIR: dataDir })]);
    expect(version).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
    expect(bare.code).toBe(64);
    expect(bare.stderr).toContain('a command is required');
    expect(stray.code).toBe(64);
    expect(existsSync(dataDir)).toBe(false);
  }, 60_000);

  it('refuses local mode on a non-loopback address without a login setting', async () => {
    const result = await runCli(['local'], { MAILROOM_DATA_DIR: join(dir, 'open'), MAILROOM_HTTP_HOST: '0.0.0.0', MAILROOM_HTTP_PORT: String(await freePort()) });
    expect(result.code).toBe(78);
    expect(result.stderr).toContain('MAILROOM_HTTP_HOST: local mode listens on 0.0.0.0');
    expect(result.stderr).toContain('MAILROOM_DASHBOARD_LOGIN=on');
  }, 60_000);
});

describe('mailroom local', () => {
  let dir: string;
  let local: MailroomProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    ensureWebBuilt();
    dir = await mkdtemp(join(tmpdir(), 'mailroom-local-'));
    env = {
      MAILROOM_DATA_DIR: dir,
      MAILROOM_HTTP_PORT: String(await freePort()),
      MAILROOM_SMTP_PORT: String(await freePort()),
      MAILROOM_IMAP_PORT: String(await freePort()),
      MAILROOM_DNS_SERVERS: '127.0.0.1:9',
      MAILROOM_DNS_TIMEOUT_MS: '200',
      MAILROOM_INGEST_WORKERS: '0',
      MAILROOM_LOG_LEVEL: 'info',
    };
    local = spawnMailroom(env, 'local');
    await Promise.race([local.logged('mailroom started'), local.exited.then((code) => Promise.reject(new Error(`mailroom local exited with ${code}`)))]);
  }, 120_000);
  afterAll(async () => {
    local?.child.kill('SIGTERM');
    await local?.exited;
    await rm(dir, { recursive: true, force: true });
  });

  it('prints what to paste into an app, then catches a nodemailer message that the printed curl line returns', async () => {
    const banner = await eventually(async () => (local.stdoutLines.some((l) => l.startsWith('List mail:')) ? local.stdoutLines.join('\n') : undefined), 'start banner');
    expect(banner).toContain(`  host: 127.0.0.1\n  port: ${env.MAILROOM_SMTP_PORT}\n  security: none (no SSL/TLS, no STARTTLS)`);
    expect(banner).toContain(`Dashboard (no login from this machine): http://127.0.0.1:${env.MAILROOM_HTTP_PORT}/`);
    const curl = /^List mail: (curl .*)$/m.exec(banner)?.[1] as string;

    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: Number(env.MAILROOM_SMTP_PORT) });
    await transport.sendMail({ from: 'app@example.com', to: 'whoever@anything.example', subject: 'Caught locally', text: 'hi' });
    transport.close();
    const listed = await eventually(async () => {
      const { stdout } = await sh('sh', ['-c', `${curl} -s`]);
      return stdout.includes('Caught locally') ? stdout : undefined;
    }, 'the message through the printed curl line');
    expect(listed).toContain('whoever@anything.example');

    const page = await fetch(`http://127.0.0.1:${env.MAILROOM_HTTP_PORT}/`);
    expect(page.status).toBe(200);
  }, 60_000);

  it('exits 1 with one line naming the busy port and its setting', async () => {
    const second = await runCli(['local'], { ...env, MAILROOM_LOG_LEVEL: 'silent' });
    expect(second.code).toBe(1);
    expect(second.stderr.trim()).toBe(
      `mailroom: port ${env.MAILROOM_HTTP_PORT} on 127.0.0.1 is already in use (is Mailroom or another server running?); stop the other program or set MAILROOM_HTTP_PORT to another port`,
    );
  }, 60_000);

  it('admin commands say which database they opened; --local uses the local settings', async () => {
    const listed = await runCli(['tenant', 'list', '--local'], { MAILROOM_DATA_DIR: dir });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toContain(`mailroom: database ${join(dir, 'mailroom.db')}`);
    expect(listed.stdout).toMatch(/pro\s+Local$/m);
  }, 60_000);

  it('doctor finds nothing wrong with a running local install', async () => {
    const doctor = await runCli(['doctor', '--local'], env);
    expect(doctor.stdout).toContain('in use by the running Mailroom');
    expect(doctor.stdout).toContain('ok    DNS MX and PTR: not needed');
    expect(doctor.stdout, doctor.stdout).toContain('No problems found.');
    expect(doctor.code).toBe(0);
  }, 60_000);
});
