import type { ServiceBlobStoreConfig } from '../../config/storage-settings.js';
import type { StorageCredentials, StorageTarget } from '../../core/custom-storage.js';
import type { BlobStore } from '../../ports/blob-store.js';
import { DiskBlobStore } from './disk.blob-store.js';
import type { StorageEgress } from './storage-egress.js';

// Each cloud SDK is imported when a store of its kind is first opened: together they are some 20 MB
// of heap in every process, and a deployment uses one of them at most, most only the disk (docs/decisions.md D34).
const s3 = () => import('./s3.blob-store.js').then((module) => module.S3BlobStore);
const azure = () => import('./azure.blob-store.js').then((module) => module.AzureBlobStore);
const gcs = () => import('./gcs.blob-store.js').then((module) => module.GcsBlobStore);

/** The service's own store, from MAILROOM_BLOB_URL and its companion settings. */
export async function openServiceBlobStore(config: ServiceBlobStoreConfig): Promise<BlobStore> {
  switch (config.kind) {
    case 'disk':
      return new DiskBlobStore(config.root);
    case 's3': {
      const { kind: _kind, ...location } = config;
      const S3BlobStore = await s3();
      return new S3BlobStore(location);
    }
    case 'azure': {
      const AzureBlobStore = await azure();
      return new AzureBlobStore({ container: config.container, prefix: config.prefix, credentials: { connectionString: config.connectionString } });
    }
    case 'gcs': {
      const GcsBlobStore = await gcs();
      return new GcsBlobStore({ bucket: config.bucket, prefix: config.prefix, apiEndpoint: config.apiEndpoint });
    }
  }
}

/** Stops what the service store runs beside it (the disk store's open segments). */
export async function closeServiceBlobStore(store: BlobStore): Promise<void> {
  if (store instanceof DiskBlobStore) await store.close();
}

/**
 * A tenant's bucket. Credentials always come from the tenant, never from the service's environment.
 * With `egress`, every client connects only through the egress guard, on every connection: S3 and Azure
 * through its agents, GCS through them and its guarded proxy (gcs.blob-store.ts says why both).
 */
export async function openCustomBlobStore(target: StorageTarget, credentials: StorageCredentials, egress?: StorageEgress): Promise<BlobStore> {
  const endpoint = target.endpoint ?? undefined;
  const agents = egress === undefined ? undefined : { httpAgent: egress.httpAgent, httpsAgent: egress.httpsAgent };
  switch (credentials.provider) {
    case 'S3': {
      const S3BlobStore = await s3();
      return new S3BlobStore({
        bucket: target.bucket,
        prefix: target.prefix,
        region: target.region ?? 'us-east-1',
        endpoint,
        forcePathStyle: target.forcePathStyle,
        credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
        agents,
      });
    }
    case 'AZURE_BLOB': {
      const AzureBlobStore = await azure();
      return new AzureBlobStore({
        container: target.bucket,
        prefix: target.prefix,
        endpoint,
        credentials: 'connectionString' in credentials ? { connectionString: credentials.connectionString } : { accountName: credentials.accountName, accountKey: credentials.accountKey },
        agents,
      });
    }
    case 'GCS': {
      const GcsBlobStore = await gcs();
      return new GcsBlobStore({
        bucket: target.bucket,
        prefix: target.prefix,
        apiEndpoint: endpoint,
        credentials: { client_email: credentials.clientEmail, private_key: credentials.privateKey, project_id: credentials.projectId ?? undefined },
        egress: agents === undefined || egress === undefined ? undefined : { agents, proxyUrl: egress.proxy.url },
      });
    }
  }
}
