import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudflareDnsProvider } from './cloudflare.dns-provider.js';

/** Edge cases of the provider adapter the API-level tests do not reach (test/integration/domains.test.ts covers the rest). */
describe('CloudflareDnsProvider', () => {
  let server: Server;
  let baseUrl: string;
  const answers: Record<string, { status: number; body: string }> = {
    '/zones/quoted/dns_records': { status: 200, body: JSON.stringify({ success: true, errors: [], result: [{ id: 'r1', type: 'TXT', name: 'a.example.com', content: '"mailroom-verification=abc"', ttl: 1 }] }) },
    '/zones/garbled': { status: 200, body: '<html>proxy error</html>' },
    '/zones/refused': { status: 200, body: JSON.stringify({ success: false, errors: [{ code: 1004, message: 'DNS Validation Error' }], result: null }) },
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const answer = answers[new URL(req.url ?? '/', 'http://x').pathname] ?? { status: 404, body: '{}' };
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('strips the quotes Cloudflare puts around TXT content', async () => {
    const records = await new CloudflareDnsProvider(baseUrl, 2000).listRecords('t', 'quoted', { type: 'TXT', name: 'a.example.com' });
    expect(records).toEqual([{ id: 'r1', type: 'TXT', name: 'a.example.com', content: 'mailroom-verification=abc', ttl: 1 }]);
  });

  it('reports an unreadable answer as 502 and a refusal inside a 200 as 400 with the provider message', async () => {
    const provider = new CloudflareDnsProvider(baseUrl, 2000);
    await expect(provider.getZone('t', 'garbled')).rejects.toMatchObject({ kind: 'upstream', code: 'DNSPROVIDER_BAD_RESPONSE' });
    await expect(provider.getZone('t', 'refused')).rejects.toMatchObject({ kind: 'invalid', code: 'DNSPROVIDER_REJECTED', message: expect.stringContaining('DNS Validation Error (code 1004)') });
  });

  it('reports a provider it cannot reach as 502', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(new CloudflareDnsProvider(`http://127.0.0.1:${port}`, 2000).findZones('t', 'example.com')).rejects.toMatchObject({
      kind: 'upstream',
      code: 'DNSPROVIDER_UNREACHABLE',
    });
  });
});
