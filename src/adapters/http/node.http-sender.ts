import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { promisify } from 'node:util';
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { isBlockedAddress } from '../../core/egress.js';
import { blockedMessage, EGRESS_BLOCKED, guardedLookup, type LookupAll } from './guarded-lookup.js';
import type { HttpAttemptResult, HttpSender } from '../../ports/http-sender.js';

export interface NodeHttpSenderOptions {
  timeoutMs: number;
  /** Time to resolve and connect; a dead endpoint frees its delivery slot after this, not after `timeoutMs`. */
  connectTimeoutMs?: number;
  /** Allow loopback/private destinations (tests, on-premise installs). */
  allowPrivate: boolean;
  userAgent: string;
  /** Response bytes read before the connection is dropped; receivers only need to send a status. */
  maxResponseBytes?: number;
  /** DNS lookup, swappable so tests can simulate a name that resolves to a private address. */
  lookup?: typeof dnsLookup;
}

function errorText(error: NodeJS.ErrnoException): string {
  return error.code && !error.message.includes(error.code) ? `${error.code}: ${error.message}` : error.message;
}

/** node:http based sender: keep-alive agents, guarded DNS, a total deadline, no redirects, capped reads. */
export class NodeHttpSender implements HttpSender {
  private readonly httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 64 });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 64 });
  private readonly lookup: LookupFunction | undefined;
  private readonly maxResponseBytes: number;

  constructor(private readonly options: NodeHttpSenderOptions) {
    this.lookup = options.allowPrivate ? (options.lookup as LookupFunction | undefined) : guardedLookup((options.lookup ?? dnsLookup) as unknown as LookupAll);
    this.maxResponseBytes = options.maxResponseBytes ?? 4096;
  }

  async destinationProblem(url: string): Promise<string | undefined> {
    const target = parseHttpUrl(url);
    if (typeof target === 'string') return target;
    if (this.options.allowPrivate) return undefined;
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0) return isBlockedAddress(host) ? blockedMessage(host, host) : undefined;
    const lookupAll = promisify(this.options.lookup ?? dnsLookup);
    try {
      const addresses = (await lookupAll(host, { all: true })) as unknown as LookupAddress[];
      const bad = addresses.find((a) => isBlockedAddress(a.address));
      return bad === undefined ? undefined : blockedMessage(host, bad.address);
    } catch (error) {
      return `host ${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})`;
    }
  }

  post(url: string, body: Buffer, headers: Record<string, string>): Promise<HttpAttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const failed = (error: string, blocked = false): HttpAttemptResult => ({ ok: false, statusCode: null, durationMs: elapsed(), error, blocked });
    const target = parseHttpUrl(url);
    if (typeof target === 'string') return Promise.resolve(failed(target, true));
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (!this.options.allowPrivate && isIP(host) !== 0 && isBlockedAddress(host)) {
      return Promise.resolve(failed(blockedMessage(host, host), true));
    }
    const secure = target.protocol === 'https:';
    return new Promise((resolve) => {
      let settled = false;
      const settle = (result: HttpAttemptResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve(result);
      };
      const send = secure ? httpsRequest : httpRequest;
      let request: ClientRequest;
      try {
        request = send(target, {
          method: 'POST',
          agent: secure ? this.httpsAgent : this.httpAgent,
          headers: { ...headers, 'content-length': String(body.byteLength), 'user-agent': this.options.userAgent },
          ...(this.lookup ? { lookup: this.lookup } : {}),
        });
      } catch (error) {
        // A request node refuses to build (a header value with CR/LF, ERR_INVALID_CHAR) fails the same way every time.
        resolve(failed(`the request could not be built: ${errorText(error as NodeJS.ErrnoException)}`, true));
        return;
      }
      request.on('socket', (socket) => this.limitConnect(request, socket));
      const deadline = setTimeout(() => {
        request.destroy();
        settle(failed(`timed out after ${this.options.timeoutMs} ms`));
      }, this.options.timeoutMs);
      request.on('response', (response) => this.drain(response, () => {
        const statusCode = response.statusCode ?? 0;
        const ok = statusCode >= 200 && statusCode < 300;
        settle({ ok, statusCode, durationMs: elapsed(), error: null, blocked: false });
      }));
      request.on('error', (error: NodeJS.ErrnoException) => settle(failed(errorText(error), error.code === EGRESS_BLOCKED)));
      request.end(body);
    });
  }

  /** A new socket that is not connected within the connect timeout fails the request (reused keep-alive sockets are connected). */
  private limitConnect(request: ClientRequest, socket: Socket): void {
    const limit = this.options.connectTimeoutMs;
    if (limit === undefined || !socket.connecting) return;
    const timer = setTimeout(() => request.destroy(new Error(`could not connect within ${limit} ms`)), limit);
    const done = () => clearTimeout(timer);
    socket.once('connect', done);
    socket.once('close', done);
  }

  /** Reads the response up to the cap (discarding it), then calls `done`; an oversized body closes the socket. */
  private drain(response: IncomingMessage, done: () => void): void {
    let received = 0;
    response.on('data', (chunk: Buffer) => {
      received += chunk.byteLength;
      if (received > this.maxResponseBytes) {
        response.destroy();
        done();
      }
    });
    response.on('end', done);
    response.on('error', done);
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

function parseHttpUrl(url: string): URL | string {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return 'is not a valid URL';
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return 'must use http or https';
  if (target.hostname === '') return 'has no host';
  return target;
}
