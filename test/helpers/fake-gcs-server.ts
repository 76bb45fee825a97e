import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CRC32C } from '@google-cloud/storage';

/**
 * A local server for the parts of the GCS JSON API that @google-cloud/storage calls (no GCS emulator
 * installs here, stack-notes §3): multipart and resumable uploads, object metadata, media downloads
 * with Range, delete and list. Responses carry md5Hash/crc32c (and x-goog-hash on downloads), which
 * the SDK checks.
 */
interface StoredObject {
  data: Buffer;
  contentType: string;
  updated: string;
  generation: number;
}

export interface FakeGcsServer {
  apiEndpoint: string;
  objects: Map<string, StoredObject>;
  close(): Promise<void>;
}

const hashes = (data: Buffer) => {
  const crc = new CRC32C();
  crc.update(data);
  return { md5Hash: createHash('md5').update(data).digest('base64'), crc32c: crc.toString() };
};

async function body(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function json(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

const notFound = (response: ServerResponse) => json(response, 404, { error: { code: 404, message: 'No such object' } });

/** multipart/related: a JSON metadata part, then the content part. */
function splitMultipart(raw: Buffer, contentType: string): { metadata: { name?: string; contentType?: string }; data: Buffer } {
  const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1] ?? '';
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Buffer[] = [];
  let start = raw.indexOf(delimiter);
  while (start !== -1) {
    const next = raw.indexOf(delimiter, start + delimiter.length);
    if (next === -1) break;
    parts.push(raw.subarray(start + delimiter.length + 2, next - 2));
    start = next;
  }
  const content = (part: Buffer) => part.subarray(part.indexOf('\r\n\r\n') + 4);
  const [meta, data] = parts;
  return { metadata: JSON.parse(content(meta ?? Buffer.from('\r\n\r\n{}')).toString()), data: content(data ?? Buffer.alloc(0)) };
}

export async function startFakeGcs(): Promise<FakeGcsServer> {
  const objects = new Map<string, StoredObject>();
  const sessions = new Map<string, { bucket: string; name: string; contentType: string; chunks: Buffer[] }>();
  let generation = 1;
  let sessionCounter = 0;
  let endpoint = '';

  const resource = (bucket: string, name: string, object: StoredObject) => ({
    kind: 'storage#object',
    id: `${bucket}/${name}/${object.generation}`,
    bucket,
    name,
    size: String(object.data.byteLength),
    contentType: object.contentType,
    updated: object.updated,
    timeCreated: object.updated,
    generation: String(object.generation),
    metageneration: '1',
    ...hashes(object.data),
  });

  const store = (bucket: string, name: string, data: Buffer, contentType: string) => {
    const object = { data, contentType, updated: new Date().toISOString(), generation: generation++ };
    objects.set(`${bucket}/${name}`, object);
    return resource(bucket, name, object);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', endpoint);
    const raw = await body(request);
    const upload = /^\/upload\/storage\/v1\/b\/([^/]+)\/o$/.exec(url.pathname);
    if (upload && request.method === 'POST') {
      const bucket = decodeURIComponent(upload[1] as string);
      if (url.searchParams.get('uploadType') === 'multipart') {
        const { metadata, data } = splitMultipart(raw, request.headers['content-type'] ?? '');
        const name = url.searchParams.get('name') ?? metadata.name ?? '';
        return json(response, 200, store(bucket, name, data, metadata.contentType ?? 'application/octet-stream'));
      }
      const metadata = raw.byteLength > 0 ? (JSON.parse(raw.toString()) as { name?: string; contentType?: string }) : {};
      const id = String(++sessionCounter);
      sessions.set(id, { bucket, name: url.searchParams.get('name') ?? metadata.name ?? '', contentType: metadata.contentType ?? 'application/octet-stream', chunks: [] });
      response.writeHead(200, { location: `${endpoint}/upload/resumable/${id}` }).end();
      return;
    }
    const resumable = /^\/upload\/resumable\/(\d+)$/.exec(url.pathname);
    if (resumable && request.method === 'PUT') {
      const session = sessions.get(resumable[1] as string);
      if (session === undefined) return notFound(response);
      session.chunks.push(raw);
      const received = session.chunks.reduce((sum, c) => sum + c.byteLength, 0);
      const total = /\/(\d+)$/.exec(request.headers['content-range'] ?? '')?.[1];
      if (total === undefined || Number(total) !== received) {
        response.writeHead(308, received > 0 ? { range: `bytes=0-${received - 1}` } : {}).end();
        return;
      }
      sessions.delete(resumable[1] as string);
      return json(response, 200, store(session.bucket, session.name, Buffer.concat(session.chunks), session.contentType));
    }
    const list = /^\/storage\/v1\/b\/([^/]+)\/o$/.exec(url.pathname);
    if (list && request.method === 'GET') {
      const bucket = decodeURIComponent(list[1] as string);
      const prefix = url.searchParams.get('prefix') ?? '';
      const items = [...objects]
        .filter(([key]) => key.startsWith(`${bucket}/${prefix}`))
        .map(([key, object]) => resource(bucket, key.slice(bucket.length + 1), object));
      return json(response, 200, { kind: 'storage#objects', items });
    }
    const single = /^\/storage\/v1\/b\/([^/]+)\/o\/(.+)$/.exec(url.pathname);
    if (single) {
      const bucket = decodeURIComponent(single[1] as string);
      const name = decodeURIComponent(single[2] as string);
      const object = objects.get(`${bucket}/${name}`);
      if (object === undefined) return notFound(response);
      if (request.method === 'DELETE') {
        objects.delete(`${bucket}/${name}`);
        response.writeHead(204).end();
        return;
      }
      if (url.searchParams.get('alt') !== 'media') return json(response, 200, resource(bucket, name, object));
      const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
      if (range === null) {
        const { md5Hash, crc32c } = hashes(object.data);
        response.writeHead(200, { 'content-type': object.contentType, 'x-goog-hash': `crc32c=${crc32c},md5=${md5Hash}`, 'x-goog-generation': String(object.generation) });
        response.end(object.data);
        return;
      }
      const start = Number(range[1]);
      const end = range[2] === '' ? object.data.byteLength - 1 : Math.min(Number(range[2]), object.data.byteLength - 1);
      response.writeHead(206, { 'content-type': object.contentType, 'content-range': `bytes ${start}-${end}/${object.data.byteLength}` });
      response.end(object.data.subarray(start, end + 1));
      return;
    }
    json(response, 400, { error: { code: 400, message: `unsupported ${request.method} ${url.pathname}` } });
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => json(response, 500, { error: { code: 500, message: String(error) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiEndpoint: endpoint,
    objects,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
