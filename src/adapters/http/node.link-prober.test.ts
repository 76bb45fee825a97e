import type { lookup as dnsLookup } from 'node:dns';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeLinkProber } from './node.link-prober.js';

/** `internal.test` resolves to 127.0.0.2 (the "private" listener), every other name to 127.0.0.1. */
const fakeLookup = ((hostname: string, _options: object, callback: (e: Error | null, a: unknown) => void) => {
  callback(null, [{ address: hostname === 'internal.test' ? '127.0.0.2' : '127.0.0.1', family: 4 }]);
}) as unknown as typeof dnsLookup;

async function listen(host: string, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe('NodeLinkProber', () => {
  let site: Server;
  let internal: Server;
  let base: string;
  let internalPort: number;
  const siteHits: string[] = [];
  const internalHits: string[] = [];

  beforeAll(async () => {
    ({ server: internal, port: internalPort } = await listen('127.0.0.2', (req, res) => {
      internalHits.push(`${req.method} ${req.url}`);
      res.writeHead(200).end('internal');
    }));
    const outside = await listen('127.0.0.1', (req, res) => {
      siteHits.push(`${req.method} ${req.url}`);
      const url = req.url ?? '';
      if (url === '/ok') return res.writeHead(200).end('fine');
      if (url === '/no-head') return req.method === 'HEAD' ? res.writeHead(405).end() : res.writeHead(200).end('body');
      if (url === '/gone') return res.writeHead(404).end();
      if (url === '/moved') return res.writeHead(301, { location: '/ok' }).end();
      if (url.startsWith('/chain/')) {
        const n = Number(url.slice('/chain/'.length));
        return res.writeHead(302, { location: `/chain/${n + 1}` }).end();
      }
      if (url === '/to-internal-ip') return res.writeHead(302, { location: `http://127.0.0.2:${internalPort}/secret` }).end();
      if (url === '/to-internal-name') return res.writeHead(307, { location: `http://internal.test:${internalPort}/secret` }).end();
      if (url === '/to-ftp') return res.writeHead(302, { location: 'ftp://example.com/file' }).end();
      if (url === '/hang') return;
      res.writeHead(500).end();
    });
    site = outside.server;
    base = `http://127.0.0.1:${outside.port}`;
  });
  afterAll(() => {
    site?.close();
    internal?.close();
  });

  /** The egress policy of production, narrowed to 127.0.0.2 so a local listener can play the public site. */
  const guarded = (timeoutMs = 5000) =>
    new NodeLinkProber({ timeoutMs, maxRedirects: 5, allowPrivate: false, userAgent: 'test', lookup: fakeLookup, isBlocked: (a) => a === '127.0.0.2' });

  it('answers a plain 200 with HEAD and follows a redirect to its end', async () => {
    const prober = guarded();
    expect(await prober.probe(`${base}/ok`)).toMatchObject({ finalUrl: `${base}/ok`, statusCode: 200, redirects: [], error: null });
    const moved = await prober.probe(`${base}/moved`);
    expect(moved).toMatchObject({ finalUrl: `${base}/ok`, statusCode: 200, error: null, redirects: [{ url: `${base}/moved`, method: 'HEAD', statusCode: 301 }] });
  });

  it('falls back to GET when HEAD is refused, and reports a 404 as a status, not an error', async () => {
    siteHits.length = 0;
    const prober = guarded();
    expect(await prober.probe(`${base}/no-head`)).toMatchObject({ statusCode: 200, error: null });
    expect(siteHits).toEqual(['HEAD /no-head', 'GET /no-head']);
    expect(await prober.probe(`${base}/gone`)).toMatchObject({ statusCode: 404, error: null });
  });

  it('follows at most 5 redirects', async () => {
    const result = await guarded().probe(`${base}/chain/0`);
    expect(result.redirects).toHaveLength(6);
    expect(result).toMatchObject({ statusCode: null, finalUrl: `${base}/chain/5`, error: { kind: 'too-many-redirects' } });
  });

  it('refuses a redirect to a blocked address, by IP literal or by name, and the listener there sees nothing', async () => {
    internalHits.length = 0;
    const prober = guarded();
    const byIp = await prober.probe(`${base}/to-internal-ip`);
    expect(byIp).toMatchObject({ statusCode: null, finalUrl: `http://127.0.0.2:${internalPort}/secret`, error: { kind: 'blocked' } });
    expect(byIp.redirects).toEqual([{ url: `${base}/to-internal-ip`, method: 'HEAD', statusCode: 302 }]);
    const byName = await prober.probe(`${base}/to-internal-name`);
    expect(byName).toMatchObject({ statusCode: null, error: { kind: 'blocked' } });
    expect(byName.error?.message).toContain('127.0.0.2');
    expect(internalHits).toEqual([]);
  });

  it('with the production policy, a loopback link is refused before any connection', async () => {
    siteHits.length = 0;
    const prober = new NodeLinkProber({ timeoutMs: 5000, maxRedirects: 5, allowPrivate: false, userAgent: 'test', lookup: fakeLookup });
    expect(await prober.probe(`${base}/ok`)).toMatchObject({ statusCode: null, error: { kind: 'blocked' } });
    expect(await prober.probe(`http://site.test:${new URL(base).port}/ok`)).toMatchObject({ statusCode: null, error: { kind: 'blocked' } });
    expect(siteHits).toEqual([]);
  });

  it('allowPrivate reaches private addresses, redirects included', async () => {
    const prober = new NodeLinkProber({ timeoutMs: 5000, maxRedirects: 5, allowPrivate: true, userAgent: 'test', lookup: fakeLookup });
    expect(await prober.probe(`${base}/to-internal-name`)).toMatchObject({ statusCode: 200, finalUrl: `http://internal.test:${internalPort}/secret`, error: null });
  });

  it('reports timeouts, refused connections and non-web redirects per URL', async () => {
    const prober = guarded(300);
    const hang = await prober.probe(`${base}/hang`);
    expect(hang).toMatchObject({ statusCode: null, error: { kind: 'timeout', message: 'no answer within 300 ms' } });
    expect(hang.durationMs).toBeLessThan(2000);
    const closed = await listen('127.0.0.1', () => undefined);
    const closedPort = (closed.server.address() as AddressInfo).port;
    await new Promise((resolve) => closed.server.close(resolve));
    expect(await prober.probe(`http://127.0.0.1:${closedPort}/`)).toMatchObject({ statusCode: null, error: { kind: 'connection' } });
    expect(await prober.probe(`${base}/to-ftp`)).toMatchObject({ statusCode: null, error: { kind: 'invalid-url' } });
  });
});
