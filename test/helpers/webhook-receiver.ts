import { EventEmitter } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  json<T = any>(): T; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Decides the status for each request; may delay (never resolving simulates a hung endpoint). */
export type Responder = (request: ReceivedRequest, index: number) => number | Promise<number>;

export interface WebhookReceiver {
  /** http://127.0.0.1:<port> */
  origin: string;
  received: ReceivedRequest[];
  respondWith(responder: Responder): void;
  /** Resolves once `count` requests matching `match` have arrived (woken per request, no polling). */
  waitFor(count: number, match?: (request: ReceivedRequest) => boolean, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A real node:http server standing in for a customer's webhook endpoint or the chat app's API. */
export async function startWebhookReceiver(responder: Responder = () => 200): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const arrivals = new EventEmitter();
  arrivals.setMaxListeners(100);
  let respond = responder;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        json: () => JSON.parse(body.toString('utf8')),
      };
      const index = received.push(request) - 1;
      arrivals.emit('request');
      void Promise.resolve(respond(request, index)).then((status) => res.writeHead(status, { 'content-type': 'text/plain' }).end('ok'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    respondWith(next) {
      respond = next;
    },
    waitFor(count, match = () => true, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const matching = received.filter(match);
          if (matching.length < count) return false;
          clearTimeout(timer);
          arrivals.off('request', check);
          resolve(matching);
          return true;
        };
        const timer = setTimeout(() => {
          arrivals.off('request', check);
          reject(new Error(`expected ${count} matching requests, got ${received.filter(match).length} within ${timeoutMs} ms`));
        }, timeoutMs);
        if (!check()) arrivals.on('request', check);
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
