import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DnsResolve } from '../../src/ports/dns-resolver.js';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

const KEY = Buffer.alloc(32, 1).toString('base64');
const S3_CREDENTIALS = { accessKeyId: 'AKIA', secretAccessKey: 'secret' };

/**
 * Names for the SSRF forms: `public.test` is public but its bucket subdomain is loopback, and
 * `localhost` answers public the first time (the save-time check) and loopback afterwards. An SDK
 * connecting with its own lookup would reach the listener through /etc/hosts: only the guarded
 * agent, which asks this resolver again, keeps it out.
 */
function hostileResolver(): { resolve: DnsResolve; armRebinding(): void } {
  let rebindArmed = false;
  const rebinding = () => {
    const address = rebindArmed ? '93.184.215.14' : '127.0.0.1';
    rebindArmed = false;
    return address;
  };
  const resolve: DnsResolve = async (name, rrtype) => {
    const host = name.toLowerCase();
    const address = host === 'public.test' ? '93.184.215.14' : host === 'mail-bucket.public.test' ? '127.0.0.1' : host === 'localhost' ? rebinding() : undefined;
    if (rrtype !== 'A' || address === undefined) throw Object.assign(new Error(`no ${rrtype} for ${name}`), { code: 'ENODATA' });
    return [address];
  };
  return { resolve, armRebinding: () => (rebindArmed = true) };
}

describe.each(TEST_DIALECTS)('custom storage cannot reach the service\'s own network (%s)', (dialect) => {
  let t: TestApp;
  let listener: Server;
  let port: number;
  let connections = 0;
  const dns = hostileResolver();

  beforeAll(async () => {
    listener = createServer((_request, response) => response.end('internal secret'));
    listener.on('connection', () => connections++);
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as AddressInfo).port;
    t = await startTestApp({ dialect, env: { MAILROOM_STORAGE_ALLOW_PRIVATE_ENDPOINTS: '0' }, overrides: { resolver: dns.resolve } });
  });
  afterAll(async () => {
    await t?.stop();
    listener?.close();
  });

  const forms: Array<[string, () => Record<string, unknown>, string]> = [
    ['an S3 endpoint on loopback', () => ({ provider: 'S3', bucket: 'mail-bucket', endpoint: `http://127.0.0.1:${port}`, forcePathStyle: true, credentials: S3_CREDENTIALS }), 'endpoint'],
    ['an S3 endpoint as IPv4-mapped IPv6', () => ({ provider: 'S3', bucket: 'mail-bucket', endpoint: `http://[::ffff:7f00:1]:${port}`, forcePathStyle: true, credentials: S3_CREDENTIALS }), 'endpoint'],
    ['an S3 virtual-hosted bucket subdomain on loopback', () => ({ provider: 'S3', bucket: 'mail-bucket', endpoint: `http://public.test:${port}`, credentials: S3_CREDENTIALS }), 'bucket'],
    ['Azure development storage', () => ({ provider: 'AZURE_BLOB', bucket: 'mail', credentials: { connectionString: 'UseDevelopmentStorage=true' } }), 'credentials.connectionString'],
    [
      'an Azure development storage proxy',
      () => ({ provider: 'AZURE_BLOB', bucket: 'mail', credentials: { connectionString: `UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://127.0.0.1:${port}` } }),
      'credentials.connectionString',
    ],
    [
      'an Azure BlobEndpoint behind a lower-case decoy',
      () => ({
        provider: 'AZURE_BLOB',
        bucket: 'mail',
        credentials: { connectionString: `DefaultEndpointsProtocol=https;blobendpoint=https://public.test;BlobEndpoint=http://127.0.0.1:${port}/acct;AccountName=acct;AccountKey=${KEY}` },
      }),
      'credentials.connectionString',
    ],
    ['an Azure endpoint with account and key', () => ({ provider: 'AZURE_BLOB', bucket: 'mail', endpoint: `http://127.0.0.1:${port}/acct`, credentials: { accountName: 'acct', accountKey: KEY } }), 'endpoint'],
    ['a GCS endpoint on loopback', () => ({ provider: 'GCS', bucket: 'mail-bucket', endpoint: `http://127.0.0.1:${port}`, credentials: { serviceAccountJson: JSON.stringify({ client_email: 'a@b.iam.gserviceaccount.com', private_key: 'k' }) } }), 'endpoint'],
  ];

  it.each(forms)('refuses %s', async (_name, body, field) => {
    const response = await t.http.put('/api/v1/storage', body());
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({ code: 'STORAGE_ENDPOINT_FORBIDDEN', field });
    expect(connections).toBe(0);
  });

  it.each<[string, (port: number) => Record<string, unknown>]>([
    ['S3', (p) => ({ provider: 'S3', bucket: 'mail-bucket', endpoint: `http://localhost:${p}`, forcePathStyle: true, credentials: S3_CREDENTIALS })],
    ['Azure (account and key)', (p) => ({ provider: 'AZURE_BLOB', bucket: 'mail', endpoint: `http://localhost:${p}/acct`, credentials: { accountName: 'acct', accountKey: KEY } })],
    [
      'Azure (connection string)',
      (p) => ({ provider: 'AZURE_BLOB', bucket: 'mail', credentials: { connectionString: `DefaultEndpointsProtocol=http;AccountName=acct;AccountKey=${KEY};BlobEndpoint=http://localhost:${p}/acct` } }),
    ],
  ])('%s: a name that re-resolves to loopback after the check (DNS rebinding) is refused, with a generic message', async (_name, body) => {
    dns.armRebinding();
    const response = await t.http.put('/api/v1/storage', body(port));
    expect(response.status).toBe(400);
    expect(response.json().code).toBe('STORAGE_CHECK_FAILED');
    expect(response.text).not.toMatch(/127\.0\.0\.1|loopback|internal secret/);
    expect(connections).toBe(0);
    expect((await t.http.get('/api/v1/storage')).status).toBe(404);
  });
});
