import { lookup } from 'node:dns/promises';
import type { ServiceBlobStoreConfig } from '../../config/storage-settings.js';
import type { StorageCredentials, StorageTarget } from '../../core/custom-storage.js';
import { isBlockedAddress } from '../../core/egress.js';
import { InvalidInputError } from '../../core/errors.js';
import type { BlobStore } from '../../ports/blob-store.js';
import { AzureBlobStore } from './azure.blob-store.js';
import { DiskBlobStore } from './disk.blob-store.js';
import { GcsBlobStore } from './gcs.blob-store.js';
import { S3BlobStore } from './s3.blob-store.js';

/** The service's own store, from MAILROOM_BLOB_URL and its companion settings. */
export function openServiceBlobStore(config: ServiceBlobStoreConfig): BlobStore {
  switch (config.kind) {
    case 'disk':
      return new DiskBlobStore(config.root);
    case 's3': {
      const { kind: _kind, ...location } = config;
      return new S3BlobStore(location);
    }
    case 'azure':
      return new AzureBlobStore({ container: config.container, prefix: config.prefix, credentials: { connectionString: config.connectionString } });
    case 'gcs':
      return new GcsBlobStore({ bucket: config.bucket, prefix: config.prefix, apiEndpoint: config.apiEndpoint });
  }
}

/** A tenant's bucket. Credentials always come from the tenant, never from the service's environment. */
export function openCustomBlobStore(target: StorageTarget, credentials: StorageCredentials): BlobStore {
  const endpoint = target.endpoint ?? undefined;
  switch (credentials.provider) {
    case 'S3':
      return new S3BlobStore({
        bucket: target.bucket,
        prefix: target.prefix,
        region: target.region ?? 'us-east-1',
        endpoint,
        forcePathStyle: target.forcePathStyle,
        credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
      });
    case 'AZURE_BLOB':
      return new AzureBlobStore({
        container: target.bucket,
        prefix: target.prefix,
        endpoint,
        credentials: 'connectionString' in credentials ? { connectionString: credentials.connectionString } : { accountName: credentials.accountName, accountKey: credentials.accountKey },
      });
    case 'GCS':
      return new GcsBlobStore({
        bucket: target.bucket,
        prefix: target.prefix,
        apiEndpoint: endpoint,
        credentials: { client_email: credentials.clientEmail, private_key: credentials.privateKey, project_id: credentials.projectId ?? undefined },
      });
  }
}

/** The hosts a configuration makes the SDK connect to, where the customer chose them. */
function chosenHosts(target: StorageTarget, credentials: StorageCredentials): string[] {
  const urls = [target.endpoint];
  if ('connectionString' in credentials) urls.push(/BlobEndpoint=([^;]+)/i.exec(credentials.connectionString)?.[1] ?? null);
  return urls.flatMap((url) => {
    if (url === null) return [];
    try {
      return [new URL(url).hostname];
    } catch {
      return [];
    }
  });
}

/**
 * Refuses endpoints on loopback, private and link-local addresses (the cloud metadata address
 * included), as webhooks do: a tenant must not point the service at its own network.
 */
export async function assertPublicEndpoints(target: StorageTarget, credentials: StorageCredentials): Promise<void> {
  for (const host of chosenHosts(target, credentials)) {
    const addresses = await lookup(host.replace(/^\[|\]$/g, ''), { all: true }).catch(() => []);
    if (addresses.length === 0 || addresses.some((a) => isBlockedAddress(a.address))) {
      throw new InvalidInputError('STORAGE_ENDPOINT_FORBIDDEN', `endpoint host ${host} does not resolve to a public address`, { field: 'endpoint' });
    }
  }
}
