import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { openServiceBlobStore } from '../adapters/blobs/open-blob-store.js';
import { createDatabase } from '../adapters/db/database.js';
import { createNodeDnsResolver } from '../adapters/dns/node.dns-resolver.js';
import type { AppConfig } from '../config/config.js';
import type { DnsResolve } from '../ports/dns-resolver.js';
import { isLoopback } from '../core/loopback.js';

/** One finding: `fail` makes `mailroom doctor` exit 1; `warn` is printed but tolerated. */
export interface Finding {
  check: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

/** A certificate that expires sooner than this is reported, so it is renewed before senders refuse it. */
const EXPIRY_WARNING_DAYS = 14;
const DAY_MS = 86_400_000;
const PROBE_TIMEOUT_MS = 5_000;

const ok = (check: string, detail: string): Finding => ({ check, status: 'ok', detail });
const warn = (check: string, detail: string): Finding => ({ check, status: 'warn', detail });
const fail = (check: string, detail: string): Finding => ({ check, status: 'fail', detail });
const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** The mail domain's MX must exist; one of its hosts should be this service's MX host. */
async function checkMx(resolve: DnsResolve, config: AppConfig): Promise<Finding> {
  const check = `DNS MX ${config.mailDomain}`;
  try {
    const records = (await resolve(config.mailDomain, 'MX')) as Array<{ exchange: string; priority: number }>;
    const hosts = records.map((r) => r.exchange.toLowerCase().replace(/\.$/, ''));
    if (hosts.length === 0) return fail(check, 'no MX record: senders cannot deliver to the mail domain');
    if (!hosts.includes(config.mxHost)) return warn(check, `MX points to ${hosts.join(', ')}, not MAILROOM_MX_HOST ${config.mxHost}`);
    return ok(check, hosts.join(', '));
  } catch (error) {
    return fail(check, `lookup failed (${(error as { code?: string }).code ?? reason(error)}): publish an MX record for ${config.mailDomain}`);
  }
}

const reverseName = (ipv4: string) => `${ipv4.split('.').reverse().join('.')}.in-addr.arpa`;

/** Forward-confirmed reverse DNS of the MX host: many senders distrust a host whose PTR does not match. */
async function checkPtr(resolve: DnsResolve, config: AppConfig): Promise<Finding> {
  const check = `DNS PTR ${config.mxHost}`;
  let addresses: string[];
  try {
    addresses = (await resolve(config.mxHost, 'A')) as string[];
  } catch (error) {
    return fail(check, `no A record for the MX host (${(error as { code?: string }).code ?? reason(error)})`);
  }
  const wrong: string[] = [];
  for (const address of addresses) {
    const names = ((await resolve(reverseName(address), 'PTR').catch(() => [])) as string[]).map((n) => n.toLowerCase().replace(/\.$/, ''));
    if (!names.includes(config.mxHost)) wrong.push(`${address} → ${names.length > 0 ? names.join(', ') : 'no PTR'}`);
  }
  if (wrong.length > 0) return fail(check, `reverse DNS does not name ${config.mxHost}: ${wrong.join('; ')}`);
  return ok(check, `${addresses.join(', ')} → ${config.mxHost}`);
}

function bindable(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve('in use (is Mailroom or another server already running?)');
      else if (error.code === 'EACCES') resolve('not permitted (ports below 1024 need CAP_NET_BIND_SERVICE)');
      else resolve(`${error.code ?? 'error'}: ${error.message}`);
    });
    server.listen(port, host, () => server.close(() => resolve(undefined)));
  });
}

/** Whether the SMTP port answers with Mailroom's greeting: then busy ports are the server being checked. */
function smtpGreetsAsMailroom(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: host === '0.0.0.0' ? '127.0.0.1' : host, port });
    const finish = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('data', (data: Buffer) => finish(/^220 .*ESMTP Mailroom/.test(data.toString('latin1'))));
  });
}

/**
 * A setup only this machine talks to (every listener on loopback, or a *.localhost mail domain):
 * MX, PTR and a CA-signed certificate are not needed there (docs/local.md).
 */
export function isLocalSetup(config: AppConfig): boolean {
  const listeners = [config.http.host, config.smtp.host, config.imap.host];
  return listeners.every(isLoopback) || config.mailDomain === 'localhost' || config.mailDomain.endsWith('.localhost');
}

async function checkPorts(config: AppConfig): Promise<Finding[]> {
  const listeners = [
    { role: 'http', name: 'MAILROOM_HTTP_PORT', ...config.http },
    { role: 'smtp', name: 'MAILROOM_SMTP_PORT', ...config.smtp },
    { role: 'imap', name: 'MAILROOM_IMAP_PORT', ...config.imap },
  ] as const;
  const findings: Finding[] = [];
  let running: boolean | undefined;
  for (const listener of listeners) {
    if (!config.operations.roles.has(listener.role)) continue;
    const check = `port ${listener.host}:${listener.port} (${listener.name})`;
    const problem = await bindable(listener.host, listener.port);
    running ??= problem === undefined ? undefined : await smtpGreetsAsMailroom(config.smtp.host, config.smtp.port);
    if (problem === undefined) findings.push(ok(check, 'free'));
    else findings.push(running === true ? ok(check, 'in use by the running Mailroom (its SMTP port greets as Mailroom)') : fail(check, problem));
  }
  return findings;
}

/** The configured certificate: readable, matching its key, valid now and for a while, naming the hosts clients use. */
async function checkCertificate(config: AppConfig, now: number): Promise<Finding> {
  const check = 'TLS certificate';
  if (config.tls === undefined && isLocalSetup(config)) {
    const use = config.local.httpTls ? 'a self-signed certificate (trust it with NODE_EXTRA_CA_CERTS or curl --cacert, docs/local.md)' : 'plain HTTP';
    return ok(check, `local setup: ${use}; senders on this machine need no CA-signed certificate`);
  }
  if (config.tls === undefined) return warn(check, 'MAILROOM_TLS_CERT is not set: a self-signed certificate is used, which senders and clients cannot verify');
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(await readFile(config.tls.certPath));
    if (!cert.checkPrivateKey(createPrivateKey(await readFile(config.tls.keyPath)))) return fail(check, `MAILROOM_TLS_KEY does not belong to ${config.tls.certPath}`);
  } catch (error) {
    return fail(check, `cannot read certificate or key: ${reason(error)}`);
  }
  const validTo = Date.parse(cert.validTo);
  if (Date.parse(cert.validFrom) > now) return fail(check, `not valid before ${cert.validFrom}`);
  if (validTo <= now) return fail(check, `expired on ${cert.validTo}`);
  const publicHost = new URL(config.publicUrl).hostname;
  const unmatched = [...new Set([config.mxHost, publicHost])].filter((host) => cert.checkHost(host) === undefined);
  if (unmatched.length > 0) return fail(check, `does not cover ${unmatched.join(', ')} (subject alt names: ${cert.subjectAltName ?? 'none'})`);
  const daysLeft = Math.floor((validTo - now) / DAY_MS);
  if (daysLeft < EXPIRY_WARNING_DAYS) return warn(check, `expires in ${daysLeft} days (${cert.validTo})`);
  return ok(check, `valid until ${cert.validTo} (${daysLeft} days), covers ${[config.mxHost, publicHost].join(', ')}`);
}

async function checkDatabase(config: AppConfig): Promise<Finding> {
  const check = `database (${config.db.dialect})`;
  const db = createDatabase(config.db);
  try {
    await withTimeout(sql`select 1`.execute(db.kysely), 'database');
    return ok(check, 'reachable');
  } catch (error) {
    return fail(check, `unreachable: ${reason(error)}`);
  } finally {
    await db.close().catch(() => undefined);
  }
}

async function checkRedis(config: AppConfig): Promise<Finding | undefined> {
  if (config.redisUrl === undefined) return undefined;
  // One attempt, no reconnect loop: a probe must end, reachable or not.
  const redis = new Redis(config.redisUrl, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: PROBE_TIMEOUT_MS });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await withTimeout(redis.ping(), 'redis');
    return ok('redis', 'reachable');
  } catch (error) {
    return fail('redis', `unreachable: ${reason(error)}`);
  } finally {
    redis.disconnect();
  }
}

async function checkBlobStore(config: AppConfig): Promise<Finding> {
  const check = `blob store (${config.storage.service.kind})`;
  try {
    await withTimeout(openServiceBlobStore(config.storage.service).then((store) => store.exists('doctor-probe')), 'blob store');
  } catch (error) {
    return fail(check, `unreachable: ${reason(error)}`);
  }
  if (config.db.dialect === 'postgres' && config.storage.service.kind === 'disk') {
    return warn(check, 'a file:// store with PostgreSQL: nodes behind one load balancer must share an object store (MAILROOM_BLOB_URL)');
  }
  return ok(check, 'reachable');
}

/** Every check `mailroom doctor` runs, against the configuration the service would start with. */
export async function diagnose(config: AppConfig, now = Date.now()): Promise<Finding[]> {
  const resolve = createNodeDnsResolver(config.dns.servers, config.dns.timeoutMs);
  const dns = isLocalSetup(config)
    ? [ok('DNS MX and PTR', `not needed: a local setup (listeners on loopback or a .localhost mail domain) receives mail from this machine only`)]
    : [checkMx(resolve, config), checkPtr(resolve, config)];
  const findings = await Promise.all([...dns, checkCertificate(config, now), checkDatabase(config), checkRedis(config), checkBlobStore(config)]);
  return [ok('configuration', 'every MAILROOM_* setting is valid'), ...(await checkPorts(config)), ...findings.filter((f): f is Finding => f !== undefined)];
}

export const formatFinding = (finding: Finding): string => `${{ ok: 'ok  ', warn: 'WARN', fail: 'FAIL' }[finding.status]}  ${finding.check}: ${finding.detail}`;
