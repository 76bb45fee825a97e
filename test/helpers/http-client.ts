import { request as httpsRequest, Agent } from 'node:https';

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
  json<T = any>(): T; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface RequestOptions {
  headers?: Record<string, string>;
  body?: unknown;
  apiKey?: string | null;
}

/** A real HTTPS client that trusts the test app's certificate (and nothing else). */
export class HttpClient {
  private readonly agent: Agent;

  constructor(
    readonly baseUrl: string,
    ca: Buffer,
    private readonly defaultKey?: string,
    /** Connect from this loopback address (127.0.0.2, …): a different client IP for the server. */
    localAddress?: string,
  ) {
    this.agent = new Agent({ ca, keepAlive: true, ...(localAddress === undefined ? {} : { localAddress, family: 4 }) });
  }

  request(method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse> {
    const url = new URL(path, this.baseUrl);
    const headers: Record<string, string> = { ...options.headers };
    const key = options.apiKey === undefined ? this.defaultKey : options.apiKey;
    if (key !== undefined && key !== null) headers['x-api-key'] = key;
    let payload: Buffer | undefined;
    if (options.body !== undefined) {
      payload = Buffer.isBuffer(options.body) ? options.body : Buffer.from(JSON.stringify(options.body));
      headers['content-type'] ??= 'application/json';
    }
    return new Promise((resolve, reject) => {
      const req = httpsRequest(url, { method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const text = body.toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text, json: () => JSON.parse(text) });
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  get = (path: string, options?: RequestOptions) => this.request('GET', path, options);
  post = (path: string, body?: unknown, options?: RequestOptions) => this.request('POST', path, { ...options, body });
  put = (path: string, body?: unknown, options?: RequestOptions) => this.request('PUT', path, { ...options, body });
  patch = (path: string, options?: RequestOptions) => this.request('PATCH', path, options);
  delete = (path: string, options?: RequestOptions) => this.request('DELETE', path, options);

  close(): void {
    this.agent.destroy();
  }
}
