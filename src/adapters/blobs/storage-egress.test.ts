import { describe, expect, it } from 'vitest';
import { parseStorageInput, type StorageCredentials, type StorageInput, type StorageTarget } from '../../core/custom-storage.js';
import type { DnsResolve } from '../../ports/dns-resolver.js';
import { lookupVia, sdkHosts, storageEndpointGuard } from './storage-egress.js';

/** A zone where the public names resolve publicly and the rebinding ones to loopback or metadata. */
const ZONE: Record<string, string> = {
  'public.test': '93.184.215.14',
  'my-bucket.public.test': '127.0.0.1',
  'acct.blob.public.test': '169.254.169.254',
  'localhost': '127.0.0.1',
};
const resolve: DnsResolve = async (name, rrtype) => {
  const address = ZONE[name.toLowerCase()];
  if (rrtype !== 'A' || address === undefined) throw Object.assign(new Error('no data'), { code: 'ENODATA' });
  return [address];
};
const guard = storageEndpointGuard(lookupVia(resolve));

const KEY = Buffer.alloc(32, 1).toString('base64');
const s3 = (extra: Partial<StorageInput> = {}) =>
  parseStorageInput({ provider: 'S3', bucket: 'my-bucket', credentials: { accessKeyId: 'AKIA', secretAccessKey: 'secret' }, ...extra });
const azure = (connectionString: string): [StorageTarget, StorageCredentials] => {
  const { target, credentials } = parseStorageInput({ provider: 'AZURE_BLOB', bucket: 'mail', credentials: { connectionString } });
  return [target, credentials];
};
const refused = (work: Promise<void>, field: string) => expect(work).rejects.toMatchObject({ code: 'STORAGE_ENDPOINT_FORBIDDEN', details: { field } });

describe('custom storage egress guard', () => {
  it.each(['http://127.0.0.1:9000', 'http://169.254.169.254', 'http://10.1.2.3', 'http://[::1]:9000', 'http://[::ffff:7f00:1]', 'http://[2002:7f00:1::]', 'http://localhost:9000', 'http://unresolvable.test'])(
    'refuses the S3 endpoint %s',
    async (endpoint) => {
      const { target, credentials } = s3({ endpoint, forcePathStyle: true });
      await refused(guard(target, credentials), 'endpoint');
    },
  );

  it('checks the virtual-hosted bucket host the S3 SDK builds, unless path style is forced', async () => {
    const virtual = s3({ endpoint: 'http://public.test' });
    expect((await sdkHosts(virtual.target, virtual.credentials)).map((h) => h.host)).toEqual(['public.test', 'my-bucket.public.test']);
    await refused(guard(virtual.target, virtual.credentials), 'bucket');
    const pathStyle = s3({ endpoint: 'http://public.test', forcePathStyle: true });
    await expect(guard(pathStyle.target, pathStyle.credentials)).resolves.toBeUndefined();
  });

  it.each([
    ['development storage', 'UseDevelopmentStorage=true'],
    ['a development storage proxy', `UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://public.test`],
    ['development storage in another case', 'usedevelopmentstorage=true'],
  ])('refuses an Azure connection string with %s', async (_name, connectionString) => {
    await refused(guard(...azure(connectionString)), 'credentials.connectionString');
  });

  it('reads an Azure connection string as the SDK does (case-sensitive keys, endpoint suffix)', async () => {
    // A lower-case decoy first: the SDK ignores it and calls the BlobEndpoint on loopback.
    await refused(guard(...azure(`DefaultEndpointsProtocol=https;blobendpoint=https://public.test;BlobEndpoint=http://127.0.0.1:10000/acct;AccountName=acct;AccountKey=${KEY}`)), 'credentials.connectionString');
    await refused(guard(...azure(`DefaultEndpointsProtocol=http;AccountName=acct;AccountKey=${KEY};EndpointSuffix=public.test`)), 'credentials.connectionString');
    await refused(guard(...azure('BlobEndpoint=http://127.0.0.1:1/acct;SharedAccessSignature=sv=2020&sig=x')), 'credentials.connectionString');
    await expect(guard(...azure(`DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${KEY};BlobEndpoint=https://public.test/acct`))).resolves.toBeUndefined();
    await expect(guard(...azure('not a connection string'))).rejects.toMatchObject({ code: 'INVALID_STORAGE_CONFIG' });
  });

  it('refuses an Azure account name that is not one', () => {
    expect(() => parseStorageInput({ provider: 'AZURE_BLOB', bucket: 'mail', credentials: { accountName: '127.0.0.1#', accountKey: KEY } })).toThrow(/accountName/);
  });
});
