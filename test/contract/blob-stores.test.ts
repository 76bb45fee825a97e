import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { DiskBlobStore } from '../../src/adapters/blobs/disk.blob-store.js';
import { S3BlobStore } from '../../src/adapters/blobs/s3.blob-store.js';
import { AzureBlobStore } from '../../src/adapters/blobs/azure.blob-store.js';
import { GcsBlobStore } from '../../src/adapters/blobs/gcs.blob-store.js';
import { startFakeGcs } from '../helpers/fake-gcs-server.js';
import { AZURITE_ACCOUNT, AZURITE_KEY, startAzurite, startS3rver } from '../helpers/object-store-servers.js';
import { blobStoreContract } from './blob-store.contract.js';

blobStoreContract('local disk', async () => {
  const root = await mkdtemp(join(tmpdir(), 'mailroom-disk-contract-'));
  return { store: new DiskBlobStore(root), close: () => rm(root, { recursive: true, force: true }) };
});

blobStoreContract('S3 (s3rver), with a key prefix', async () => {
  const server = await startS3rver(['contract-bucket']);
  const store = new S3BlobStore({
    bucket: 'contract-bucket',
    prefix: 'mailroom/',
    region: 'us-east-1',
    endpoint: server.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  return { store, close: async () => (store.close(), server.close()) };
});

blobStoreContract('Azure Blob (azurite), account-and-key credentials', async () => {
  const server = await startAzurite();
  await BlobServiceClient.fromConnectionString(server.connectionString).getContainerClient('contract').create();
  const store = new AzureBlobStore({
    container: 'contract',
    prefix: '',
    endpoint: server.endpoint,
    credentials: { accountName: AZURITE_ACCOUNT, accountKey: AZURITE_KEY },
  });
  return { store, close: () => server.close() };
});

blobStoreContract('GCS (local JSON API server), with a key prefix', async () => {
  const server = await startFakeGcs();
  const store = new GcsBlobStore({ bucket: 'contract', prefix: 'p/', apiEndpoint: server.apiEndpoint });
  return { store, close: () => server.close() };
});

