import type { ErrorBody, Operations } from './api-types.generated.js';

/** Shape of an operation missing from the generated map (a server older than this SDK): untyped. */
interface UntypedOperation {
  path: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  response: unknown;
}

/** An operation of the API by "METHOD /path", typed from the OpenAPI document. */
export type OperationKey = keyof Operations;
export type Operation<K extends string> = K extends OperationKey ? Operations[K] : UntypedOperation;
export type QueryOf<K extends string> = Operation<K>['query'];
export type BodyOf<K extends string> = Operation<K>['body'];
export type ResponseOf<K extends string> = Operation<K>['response'];

export interface CallArgs {
  path?: Record<string, string>;
  query?: object;
  body?: unknown;
  signal?: AbortSignal;
}

export interface TransportOptions {
  /** The service's base address, e.g. https://mailroom.example.com (without /api/v1). */
  baseUrl: string;
  apiKey: string;
  /** A fetch implementation (default: the global one; pass one to add proxies or trust a private CA). */
  fetch?: typeof fetch;
}

/** A non-2xx answer: the service's error body (statusCode, code, message, field). */
export class MailroomApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;

  constructor(readonly body: ErrorBody) {
    super(`${body.statusCode} ${body.code}: ${body.message}`);
    this.name = 'MailroomApiError';
    this.status = body.statusCode;
    this.code = body.code;
    this.field = body.field;
  }
}

function queryString(query: object | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  const text = params.toString();
  return text.length > 0 ? `?${text}` : '';
}

async function errorOf(response: Response): Promise<MailroomApiError> {
  const text = await response.text();
  try {
    return new MailroomApiError(JSON.parse(text) as ErrorBody);
  } catch {
    return new MailroomApiError({ statusCode: response.status, error: response.statusText, code: 'HTTP_ERROR', message: text.slice(0, 200) });
  }
}

/** Calls operations over fetch only (no Node modules), so the SDK runs in browsers and in Node 18+. */
export class Transport {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly fetch: typeof fetch;

  constructor(options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** `operation` is "METHOD /api/v1/path/{param}"; path parameters are filled in and encoded. */
  async call<K extends string>(operation: K, args: CallArgs = {}): Promise<ResponseOf<K>> {
    const [method = 'GET', template = '/'] = operation.split(' ');
    const path = template.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(args.path?.[name] ?? ''));
    const headers: Record<string, string> = { 'x-api-key': this.apiKey, accept: 'application/json, */*' };
    if (args.body !== undefined) headers['content-type'] = 'application/json';
    const response = await this.fetch(`${this.baseUrl}${path}${queryString(args.query)}`, {
      method,
      headers,
      body: args.body === undefined ? undefined : JSON.stringify(args.body),
      signal: args.signal,
    });
    if (!response.ok) throw await errorOf(response);
    if (response.status === 204) return undefined as ResponseOf<K>;
    const type = response.headers.get('content-type') ?? '';
    return (type.startsWith('application/json') ? await response.json() : await response.blob()) as ResponseOf<K>;
  }
}
