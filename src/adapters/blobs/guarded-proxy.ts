import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, isIP, type AddressInfo, type LookupFunction, type Socket } from 'node:net';
import { isBlockedAddress } from '../../core/egress.js';
import { EGRESS_BLOCKED } from '../http/guarded-lookup.js';

/** A running guarded proxy: its URL (with credentials) for an SDK's `proxy` option. */
export interface GuardedProxy {
  url: string;
  close(): Promise<void>;
}

/** Headers addressed to the proxy itself, not passed on. */
const HOP_HEADERS = ['proxy-authorization', 'proxy-connection', 'connection', 'keep-alive'];

/** A refused destination is final (403: the SDK does not retry it); any other failure may pass (502). */
const failureStatus = (error: NodeJS.ErrnoException) => (error.code === EGRESS_BLOCKED ? 403 : 502);

/** A request target that is no URL is a 400, not an exception: thrown from a server event handler it would end the process. */
const parsedTarget = (target: string): URL | undefined => (URL.canParse(target) ? new URL(target) : undefined);

/** A literal IP address never reaches `lookup`, so it is checked here. */
const literalBlocked = (host: string) => isIP(host) !== 0 && isBlockedAddress(host);

/**
 * A forward proxy on loopback for an SDK that takes a proxy URL but no agent (the GCS SDK's
 * teeny-request): every onward connection resolves through `lookup` (the egress guard), so a
 * tenant's endpoint that re-resolves to loopback is refused at connect time. CONNECT carries TLS
 * end to end; plain-HTTP endpoints are forwarded request by request. Only callers holding the
 * random credentials in its URL are served, so other local users cannot borrow it.
 */
export async function startGuardedProxy(lookup: LookupFunction): Promise<GuardedProxy> {
  const password = randomBytes(24).toString('hex');
  const expected = Buffer.from(`Basic ${Buffer.from(`mailroom:${password}`).toString('base64')}`);
  const authorised = (headers: IncomingHttpHeaders) => {
    const given = Buffer.from(headers['proxy-authorization'] ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

  const tunnel = (request: IncomingMessage, client: Socket, head: Buffer) => {
    client.on('error', () => client.destroy());
    if (!authorised(request.headers)) return client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
    const target = parsedTarget(`http://${request.url ?? ''}`);
    if (target === undefined) return client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (literalBlocked(host)) return client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    const upstream = connect({ host, port: Number(target.port || 443), lookup });
    upstream.once('error', (error) => client.end(`HTTP/1.1 ${failureStatus(error)} Refused\r\n\r\n`));
    upstream.once('connect', () => {
      upstream.removeAllListeners('error');
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
  };

  const forward = (request: IncomingMessage, response: ServerResponse) => {
    if (!authorised(request.headers)) return response.writeHead(407).end();
    const target = parsedTarget(request.url ?? '');
    if (target === undefined) return response.writeHead(400).end();
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (target.protocol !== 'http:' || literalBlocked(host)) return response.writeHead(403).end();
    // agent: false, a connection of its own: a pooled one (the global agent's) may have been opened without the guard.
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !HOP_HEADERS.includes(name)));
    const upstream = httpRequest({ host, port: Number(target.port || 80), path: `${target.pathname}${target.search}`, method: request.method, headers, lookup, agent: false }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.once('error', (error) => (response.headersSent ? response.destroy() : response.writeHead(failureStatus(error)).end()));
    request.pipe(upstream);
  };

  const server = createServer(forward);
  server.on('connect', tunnel);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://mailroom:${password}@127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
