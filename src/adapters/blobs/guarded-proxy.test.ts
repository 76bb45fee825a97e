import { lookup } from 'node:dns';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGuardedProxy, type GuardedProxy } from './guarded-proxy.js';

/** Sends one raw request to the proxy and resolves with its status line. */
function statusLine(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    socket.once('data', (data) => {
      resolve(data.toString('latin1').split('\r\n')[0] ?? '');
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

/** Any local process can reach the proxy: what it sends must never end Mailroom's process. */
describe('guarded proxy: malformed requests', () => {
  let proxy: GuardedProxy;
  let port: number;
  let authorization: string;

  beforeAll(async () => {
    proxy = await startGuardedProxy(lookup);
    const url = new URL(proxy.url);
    port = Number(url.port);
    authorization = `Basic ${Buffer.from(`${url.username}:${url.password}`).toString('base64')}`;
  });
  afterAll(() => proxy?.close());

  it('407 for a CONNECT without its credentials, whatever the target', async () => {
    expect(await statusLine(port, 'CONNECT [::1 HTTP/1.1\r\nHost: x\r\n\r\n')).toBe('HTTP/1.1 407 Proxy Authentication Required');
  });

  it('400 for a CONNECT or a forwarded request whose target is no URL, and the proxy keeps serving', async () => {
    expect(await statusLine(port, `CONNECT [::1 HTTP/1.1\r\nHost: x\r\nProxy-Authorization: ${authorization}\r\n\r\n`)).toBe('HTTP/1.1 400 Bad Request');
    expect(await statusLine(port, `GET /relative HTTP/1.1\r\nHost: x\r\nProxy-Authorization: ${authorization}\r\n\r\n`)).toBe('HTTP/1.1 400 Bad Request');
    expect(await statusLine(port, `GET http://127.0.0.1:9/ HTTP/1.1\r\nHost: x\r\nProxy-Authorization: ${authorization}\r\n\r\n`)).toBe('HTTP/1.1 403 Forbidden');
  });
});
