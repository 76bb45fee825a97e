import { request as httpsRequest, Agent } from 'node:https';
import { Readable } from 'node:stream';

/**
 * A fetch() over node:https that trusts one CA (the test app's self-signed certificate), for clients
 * that take a fetch option: the eventsource package and the Mailroom SDK. Streams the body.
 */
export function httpsFetch(ca: Buffer): typeof fetch & { close(): void } {
  const agent = new Agent({ ca, keepAlive: true });
  const fetchImpl = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> =>
    new Promise((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : input);
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, name) => (headers[name] = value));
      const req = httpsRequest(url, { method: init.method ?? 'GET', headers, agent }, (res) => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const status = res.statusCode ?? 0;
        const nullBody = status === 204 || status === 304;
        if (nullBody) res.resume();
        const body = nullBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        resolve(new Response(body, { status, headers: responseHeaders }));
      });
      const abort = () => req.destroy(new DOMException('The operation was aborted', 'AbortError'));
      if (init.signal?.aborted) abort();
      init.signal?.addEventListener('abort', abort, { once: true });
      req.on('error', reject);
      req.end(typeof init.body === 'string' ? init.body : undefined);
    });
  return Object.assign(fetchImpl as typeof fetch, { close: () => agent.destroy() });
}
