import { Type } from '@sinclair/typebox';
import type { CustomStorage } from '../../../core/custom-storage.js';
import { STORAGE_PROVIDERS } from '../../../core/vocab.js';
import { IsoDate, Nullable } from './common.js';

const Provider = Type.Union(
  STORAGE_PROVIDERS.map((p) => Type.Literal(p)),
  { description: 'S3: AWS S3 or any S3-compatible service (MinIO, Ceph, R2, …); AZURE_BLOB: Azure Blob Storage; GCS: Google Cloud Storage' },
);

const Secret = (description: string) => Type.String({ minLength: 1, maxLength: 20_000, description, writeOnly: true });

export const StorageBody = Type.Object(
  {
    provider: Provider,
    bucket: Type.String({ minLength: 3, maxLength: 63, description: 'The bucket (S3, GCS) or container (Azure) name' }),
    region: Type.Optional(Type.String({ maxLength: 50, description: 'S3 region, such as eu-west-1 (default us-east-1)' })),
    endpoint: Type.Optional(Type.String({ maxLength: 500, description: 'Service URL: an S3-compatible endpoint, an Azure blob endpoint for account-and-key credentials, or a GCS JSON API endpoint. Must resolve to a public address' })),
    forcePathStyle: Type.Optional(Type.Boolean({ description: 'S3: path-style URLs (endpoint/bucket/key), needed by most S3-compatible services. Default false' })),
    prefix: Type.Optional(Type.String({ maxLength: 200, description: 'Folder in the bucket under which Mailroom writes, such as "mailroom/"' })),
    metadataOnly: Type.Optional(Type.Boolean({ description: 'Keep no bodies and no snippet in Mailroom\'s database, only headers and envelope metadata (default false)' })),
    credentials: Type.Object(
      {
        accessKeyId: Type.Optional(Secret('S3: access key id')),
        secretAccessKey: Type.Optional(Secret('S3: secret access key')),
        connectionString: Type.Optional(Secret('AZURE_BLOB: the storage account connection string (or accountName and accountKey)')),
        accountName: Type.Optional(Secret('AZURE_BLOB: storage account name')),
        accountKey: Type.Optional(Secret('AZURE_BLOB: storage account key')),
        serviceAccountJson: Type.Optional(Secret('GCS: the service-account key file (JSON text)')),
      },
      { additionalProperties: false, description: 'Per provider; stored encrypted (AES-256-GCM) and never returned or logged' },
    ),
  },
  { additionalProperties: false },
);

export const StorageSchema = Type.Object(
  {
    id: Type.String({ description: 'This configuration; a new PUT makes a new one' }),
    provider: Provider,
    bucket: Type.String(),
    region: Nullable(Type.String()),
    endpoint: Nullable(Type.String()),
    forcePathStyle: Type.Boolean(),
    prefix: Type.String({ description: '"" or a folder ending in "/"' }),
    metadataOnly: Type.Boolean(),
    pathLayout: Type.String({ description: 'Where each email goes in the bucket (dates are the arrival day, UTC)' }),
    createdAt: IsoDate,
  },
  { $id: 'CustomStorage', title: 'Custom storage (credentials are never returned)' },
);

export function toStorageView(storage: CustomStorage) {
  const { tenantId, ...view } = storage;
  const folder = `${storage.prefix}${tenantId}/<yyyy>/<mm>/<dd>/<emailId>/`;
  return { ...view, pathLayout: `${folder}message.eml, ${folder}attachments/<attachmentId>/<filename>` };
}
