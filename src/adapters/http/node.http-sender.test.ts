import type { lookup as dnsLookup } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeHttpSender } from './node.http-sender.js';

/** A resolver where `rebind.test` points at loopback and `public.test` at a public address. */
const fakeLookup = ((hostname: string, options: object, callback: (e: Error | null, a: unknown) => void) => {
  const address = hostname === 'public.test' ? '93.184.215.14' : '127.0.0.1';
  callback(null, [{ address, family: 4 }]);
}) as unknown as typeof dnsLookup;

describe('NodeHttpSender', () => {
  let server: Server;
  let port: number;
  const hits: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      req.resume();
      if (req.url === '/redirect') return res.writeHead(302, { location: '/target' }).end();
      if (req.url === '/huge') return res.writeHead(200).end(Buffer.alloc(1024 * 1024, 'x'));
      if (req.url === '/hang') return;
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const open = new NodeHttpSender({ timeoutMs: 300, allowPrivate: true, userAgent: 'test' });
  const guarded = new NodeHttpSender({ timeoutMs: 300, allowPrivate: false, userAgent: 'test', lookup: fakeLookup });

  it('refuses, at connect time, a name that resolves to a private address (DNS rebinding)', async () => {
    const before = hits.length;
    const result = await guarded.post(`http://rebind.test:${port}/rebind`, Buffer.from('{}'), {});
    expect(result).toMatchObject({ ok: false, statusCode: null, blocked: true });
    expect(result.error).toMatch(/rebind\.test resolves to 127\.0\.0\.1/);
    expect(hits.length).toBe(before);
  });

  it('checks destinations at creation time', async () => {
    expect(await guarded.destinationProblem('https://public.test/hook')).toBeUndefined();
    expect(await guarded.destinationProblem('https://rebind.test/hook')).toMatch(/resolves to 127\.0\.0\.1/);
    expect(await guarded.destinationProblem('http://169.254.169.254/')).toMatch(/169\.254\.169\.254 is a loopback/);
    expect(await guarded.destinationProblem('gopher://public.test/')).toBe('must use http or https');
    expect(await open.destinationProblem('http://127.0.0.1/')).toBeUndefined();
  });

  it('does not follow redirects', async () => {
    const result = await open.post(`http://127.0.0.1:${port}/redirect`, Buffer.from('{}'), {});
    expect(result).toMatchObject({ ok: false, statusCode: 302 });
    expect(hits).not.toContain('/target');
  });

  it('stops reading a large response body at the cap', async () => {
    const result = await open.post(`http://127.0.0.1:${port}/huge`, Buffer.from('{}'), {});
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
  });

  it('gives up after the timeout', async () => {
    const result = await open.post(`http://127.0.0.1:${port}/hang`, Buffer.from('{}'), {});
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'timed out after 300 ms' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
  });

  it('turns a request node refuses to build (CR/LF in a header value) into a failed attempt that is not retried', async () => {
    const result = await open.post(`http://127.0.0.1:${port}/ok`, Buffer.from('{}'), { authorization: 'Bot a\r\nx-injected: 1' });
    expect(result).toMatchObject({ ok: false, statusCode: null, blocked: true });
    expect(result.error).toMatch(/could not be built.*ERR_INVALID_CHAR/);
  });

  it('fails an attempt that cannot connect within the connect timeout, long before the total timeout', async () => {
    const neverResolves = (() => undefined) as unknown as typeof dnsLookup;
    const slow = new NodeHttpSender({ timeoutMs: 30_000, connectTimeoutMs: 100, allowPrivate: true, userAgent: 'test', lookup: neverResolves });
    const result = await slow.post('http://dead.test/hook', Buffer.from('{}'), {});
    expect(result).toMatchObject({ ok: false, statusCode: null, blocked: false });
    expect(result.error).toMatch(/could not connect within 100 ms/);
    expect(result.durationMs).toBeLessThan(5000);
    slow.close();
  });

  it('reports a 2xx as success', async () => {
    expect(await open.post(`http://127.0.0.1:${port}/ok`, Buffer.from('{}'), { 'content-type': 'application/json' })).toMatchObject({ ok: true, statusCode: 204 });
  });
});
