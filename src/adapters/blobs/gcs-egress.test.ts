import { lookup } from 'node:dns';
import { Agent as HttpAgent, createServer, type Server } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DnsResolve } from '../../ports/dns-resolver.js';
import { GcsBlobStore } from './gcs.blob-store.js';
import { startGuardedProxy } from './guarded-proxy.js';
import { lookupVia, storageEgress, type StorageEgress } from './storage-egress.js';

/** `localhost` resolves to loopback here, as a rebound name does after the save-time check. */
const resolve: DnsResolve = async (name, rrtype) => {
  if (rrtype !== 'A' || name.toLowerCase() !== 'localhost') throw Object.assign(new Error('no data'), { code: 'ENODATA' });
  return ['127.0.0.1'];
};

/**
 * The GCS SDK replaces any agent it is given for its JSON API calls (teeny-request) and takes one
 * only for resumable uploads (gaxios): a tenant's GCS store connects through the guarded agents and
 * the guarded proxy, and a listener on 127.0.0.1 sees nothing.
 */
describe('GCS custom storage egress', () => {
  let listener: Server;
  let endpoint: string;
  let connections = 0;
  let egress: StorageEgress;

  beforeAll(async () => {
    listener = createServer((_request, response) => response.end('{"kind":"storage#object","name":"internal secret"}'));
    listener.on('connection', () => connections++);
    await new Promise<void>((done) => listener.listen(0, '127.0.0.1', done));
    endpoint = `http://localhost:${(listener.address() as AddressInfo).port}`;
    egress = await storageEgress(lookupVia(resolve));
  });
  afterAll(async () => {
    await egress?.proxy.close();
    listener?.close();
  });

  const guarded = () =>
    new GcsBlobStore({ bucket: 'mail-bucket', prefix: '', apiEndpoint: endpoint, egress: { agents: egress, proxyUrl: egress.proxy.url } });

  it('without the guard the SDK reaches the loopback listener (the control)', async () => {
    const store = new GcsBlobStore({ bucket: 'mail-bucket', prefix: '', apiEndpoint: endpoint });
    await store.exists('a.eml').catch(() => undefined);
    expect(connections).toBeGreaterThan(0);
    connections = 0;
  });

  it('through the proxy with an unguarded lookup, the same store does reach it (the proxy forwards)', async () => {
    const open = await startGuardedProxy(lookup);
    try {
      const agents = { httpAgent: new HttpAgent(), httpsAgent: new HttpsAgent() };
      const store = new GcsBlobStore({ bucket: 'mail-bucket', prefix: '', apiEndpoint: endpoint, egress: { agents, proxyUrl: open.url } });
      expect(await store.exists('a.eml')).toBe(true);
      expect(connections).toBeGreaterThan(0);
      connections = 0;
    } finally {
      await open.close();
    }
  });

  it.each<[string, (store: GcsBlobStore) => Promise<unknown>]>([
    ['a read', (store) => store.getBuffer('a.eml')],
    ['an existence check', (store) => store.exists('a.eml')],
    ['a one-request upload', (store) => store.put('a.eml', Buffer.from('x'), 'message/rfc822')],
    ['a resumable (streamed) upload', (store) => store.put('a.eml', Readable.from([Buffer.from('x')]), 'message/rfc822')],
  ])('refuses %s to a name that resolves to loopback, and the listener sees nothing', async (_name, call) => {
    await expect(call(guarded())).rejects.toThrow();
    expect(connections).toBe(0);
  });
});
