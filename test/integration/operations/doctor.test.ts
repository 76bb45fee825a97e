import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { diagnose, type Finding } from '../../../src/doctor/doctor.js';
import { createPostgresDatabase, REDIS_URL, TEST_DIALECTS, warnIfPostgresSkipped } from '../../helpers/databases.js';
import { runCli } from '../../helpers/cli.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';

warnIfPostgresSkipped();

const DAY_MS = 86_400_000;

async function certificate(dir: string, name: string, host: string, notAfter: Date): Promise<{ cert: string; key: string }> {
  const pair = await generate([{ name: 'commonName', value: host }], {
    algorithm: 'sha256',
    keySize: 2048,
    notBeforeDate: new Date(Date.now() - 2 * DAY_MS),
    notAfterDate: notAfter,
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2 as const, value: host }] }],
  });
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  await writeFile(cert, pair.cert);
  await writeFile(key, pair.private);
  return { cert, key };
}

async function listening(): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
const portOf = (server: Server) => (server.address() as { port: number }).port;

const byCheck = (findings: Finding[]) => Object.fromEntries(findings.map((f) => [f.check.replace(/ \(.*\)$/, '').replace(/:\d+$/, ''), f]));

describe('mailroom doctor', () => {
  let dir: string;
  let dns: TestDnsServer;
  let good: { cert: string; key: string };
  let occupied: Server;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mailroom-doctor-'));
    dns = await startDnsServer({
      'mail.test': { MX: [{ exchange: 'mx.mail.test', priority: 10 }] },
      'mx.mail.test': { A: ['127.0.0.1'] },
      '1.0.0.127.in-addr.arpa': { PTR: ['mx.mail.test'] },
      'wrongptr.test': { MX: [{ exchange: 'mx.wrongptr.test', priority: 10 }] },
      'mx.wrongptr.test': { A: ['127.0.0.1'] },
    });
    good = await certificate(dir, 'good', 'mx.mail.test', new Date(Date.now() + 90 * DAY_MS));
    occupied = await listening();
    const free = await listening();
    const freePort = portOf(free);
    await new Promise((resolve) => free.close(resolve));
    env = {
      MAILROOM_DATA_DIR: dir,
      MAILROOM_MAIL_DOMAIN: 'mail.test',
      MAILROOM_MX_HOST: 'mx.mail.test',
      MAILROOM_PUBLIC_URL: 'https://mx.mail.test:8443',
      MAILROOM_DNS_SERVERS: dns.address,
      MAILROOM_DNS_TIMEOUT_MS: '1000',
      MAILROOM_TLS_CERT: good.cert,
      MAILROOM_TLS_KEY: good.key,
      MAILROOM_HTTP_HOST: '127.0.0.1',
      MAILROOM_HTTP_PORT: String(freePort),
      MAILROOM_ROLES: 'http',
    };
  });
  afterAll(async () => {
    await new Promise((resolve) => occupied?.close(resolve));
    await dns?.close();
    await rm(dir, { recursive: true, force: true });
  });

  describe.each(TEST_DIALECTS)('on %s', (dialect) => {
    it('finds nothing wrong in a healthy installation', async () => {
      const pg = dialect === 'postgres' ? await createPostgresDatabase() : undefined;
      try {
        const findings = await diagnose(loadConfig({ ...env, ...(pg ? { MAILROOM_DATABASE_URL: pg.url } : {}), ...(REDIS_URL ? { MAILROOM_REDIS_URL: REDIS_URL } : {}) }));
        const problems = findings.filter((f) => f.status !== 'ok');
        // With PostgreSQL the file:// blob store is a (tolerated) warning: nodes would not share it.
        expect(problems.every((f) => f.status === 'warn' && f.check.startsWith('blob store')), JSON.stringify(problems)).toBe(true);
        const checks = byCheck(findings);
        expect(checks['DNS MX mail.test']?.detail).toBe('mx.mail.test');
        expect(checks['DNS PTR mx.mail.test']?.detail).toBe('127.0.0.1 → mx.mail.test');
        expect(checks['TLS certificate']?.detail).toMatch(/valid until .* \(8\d days\), covers mx\.mail\.test/);
        expect(checks.database?.status).toBe('ok');
      } finally {
        await pg?.drop();
      }
    });
  });

  it('reports every problem: missing MX, wrong PTR, busy port, certificate, database, Redis', async () => {
    const expired = await certificate(dir, 'expired', 'mx.wrongptr.test', new Date(Date.now() - DAY_MS));
    const findings = await diagnose(
      loadConfig({
        ...env,
        MAILROOM_MAIL_DOMAIN: 'nomx.test',
        MAILROOM_MX_HOST: 'mx.wrongptr.test',
        MAILROOM_TLS_CERT: expired.cert,
        MAILROOM_TLS_KEY: good.key,
        MAILROOM_HTTP_PORT: String(portOf(occupied)),
        MAILROOM_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
        MAILROOM_REDIS_URL: 'redis://127.0.0.1:1',
      }),
    );
    const checks = byCheck(findings);
    expect(checks['DNS MX nomx.test']).toMatchObject({ status: 'fail', detail: expect.stringContaining('ENOTFOUND') });
    expect(checks['DNS PTR mx.wrongptr.test']).toMatchObject({ status: 'fail', detail: expect.stringContaining('does not name mx.wrongptr.test: 127.0.0.1 → mx.mail.test') });
    expect(checks['port 127.0.0.1']).toMatchObject({ status: 'fail', detail: expect.stringContaining('in use') });
    expect(checks['TLS certificate']).toMatchObject({ status: 'fail', detail: expect.stringContaining('does not belong') });
    expect(checks.database).toMatchObject({ status: 'fail', detail: expect.stringContaining('unreachable') });
    expect(checks.redis).toMatchObject({ status: 'fail', detail: expect.stringContaining('unreachable') });

    const expiredOnly = byCheck(await diagnose(loadConfig({ ...env, MAILROOM_TLS_CERT: expired.cert, MAILROOM_TLS_KEY: expired.key })));
    expect(expiredOnly['TLS certificate']).toMatchObject({ status: 'fail', detail: expect.stringContaining('expired on') });
    const otherHost = byCheck(await diagnose(loadConfig({ ...env, MAILROOM_MX_HOST: 'mx.other.test' })));
    expect(otherHost['TLS certificate']).toMatchObject({ status: 'fail', detail: expect.stringContaining('does not cover mx.other.test') });
  });

  it('prints what is wrong and exits 1 from the command line', async () => {
    const run = (extra: Record<string, string>) => runCli(['doctor'], { ...env, ...extra });
    const [broken, badSetting] = await Promise.all([run({ MAILROOM_MAIL_DOMAIN: 'nomx.test' }), run({ MAILROOM_ROLES: 'mx' })]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/^FAIL {2}DNS MX nomx\.test: lookup failed/m);
    expect(broken.stdout).toMatch(/^ok {4}TLS certificate: valid until/m);
    expect(broken.stdout).toContain('1 problem(s) found.');
    expect(badSetting.code).toBe(1);
    expect(badSetting.stdout).toContain('FAIL  configuration: MAILROOM_ROLES: "mx" is not a role');
  }, 60_000);
});
