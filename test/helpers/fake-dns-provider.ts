import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Zone } from './dns-server.js';

export interface FakeZone {
  id: string;
  name: string;
}

export interface FakeRecord {
  id: string;
  zoneId: string;
  type: 'MX' | 'TXT';
  name: string;
  content: string;
  priority?: number;
  ttl: number;
}

export interface ProviderRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  body: Record<string, unknown> | undefined;
}

export interface FakeDnsProvider {
  /** Base URL for MAILROOM_DNSPROVIDER_API_URL. */
  url: string;
  requests: ProviderRequest[];
  records: FakeRecord[];
  /** Answer the next request with this status and Cloudflare-style errors instead of serving it. */
  failNext(status: number, errors: Array<{ code: number; message: string }>): void;
  close(): Promise<void>;
}

const send = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const ok = (res: ServerResponse, result: unknown) => send(res, 200, { success: true, errors: [], messages: [], result });
const fail = (res: ServerResponse, status: number, errors: Array<{ code: number; message: string }>) => send(res, status, { success: false, errors, messages: [], result: null });

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
}

/**
 * A local HTTP server answering like Cloudflare's v4 API (zones list/get, dns_records list, create,
 * update) for one bearer token; every record it holds is also served by the loopback DNS server
 * through the shared `dnsZone` object, as a real provider's nameservers would.
 */
export async function startFakeDnsProvider(options: { token: string; zones: FakeZone[]; dnsZone: Zone; records?: FakeRecord[] }): Promise<FakeDnsProvider> {
  const requests: ProviderRequest[] = [];
  const records: FakeRecord[] = [...(options.records ?? [])];
  let injected: { status: number; errors: Array<{ code: number; message: string }> } | undefined;

  const publish = (name: string) => {
    const at = records.filter((record) => record.name === name);
    options.dnsZone[name] = {
      ...options.dnsZone[name],
      MX: at.filter((r) => r.type === 'MX').map((r) => ({ exchange: r.content, priority: r.priority ?? 0 })),
      TXT: at.filter((r) => r.type === 'TXT').map((r) => r.content.replace(/^"|"$/g, '')),
    };
  };
  for (const record of records) publish(record.name);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://provider');
    const body = await readJson(req);
    requests.push({ method: req.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), authorization: req.headers.authorization, body });
    if (injected !== undefined) {
      const { status, errors } = injected;
      injected = undefined;
      return fail(res, status, errors);
    }
    if (req.headers.authorization !== `Bearer ${options.token}`) return fail(res, 403, [{ code: 10000, message: 'Authentication error' }]);
    const parts = url.pathname.replace(/^\/client\/v4/, '').split('/').filter(Boolean);
    if (parts[0] !== 'zones') return fail(res, 404, [{ code: 7000, message: 'No route for that URI' }]);
    if (parts.length === 1) return ok(res, options.zones.filter((zone) => !url.searchParams.has('name') || zone.name === url.searchParams.get('name')));
    const zone = options.zones.find((z) => z.id === parts[1]);
    if (zone === undefined) return fail(res, 404, [{ code: 7003, message: 'Could not route to /zones, perhaps your object identifier is invalid?' }]);
    if (parts.length === 2) return ok(res, zone);
    if (req.method === 'GET') {
      const type = url.searchParams.get('type');
      const name = url.searchParams.get('name');
      return ok(res, records.filter((r) => r.zoneId === zone.id && (type === null || r.type === type) && (name === null || r.name === name)));
    }
    const input = body as Omit<FakeRecord, 'id' | 'zoneId'>;
    if (req.method === 'POST') {
      const created: FakeRecord = { ...input, id: randomUUID().replace(/-/g, ''), zoneId: zone.id };
      records.push(created);
      publish(created.name);
      return ok(res, created);
    }
    const existing = records.find((r) => r.id === parts[3] && r.zoneId === zone.id);
    if (req.method !== 'PUT' || existing === undefined) return fail(res, 404, [{ code: 81044, message: 'Record does not exist.' }]);
    Object.assign(existing, input);
    publish(existing.name);
    return ok(res, existing);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => fail(res, 500, [{ code: 500, message: String(error) }]));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/client/v4`,
    requests,
    records,
    failNext(status, errors) {
      injected = { status, errors };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
