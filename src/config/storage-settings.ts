import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalisePrefix } from '../core/custom-storage.js';
import { AppError } from '../core/errors.js';
import { ConfigError, flag, integer } from './config.js';
import type { RawEnv } from './env.js';

/** The service's own blob store (MAILROOM_BLOB_URL): where mail goes for tenants without custom storage. */
export type ServiceBlobStoreConfig =
  | { kind: 'disk'; root: string }
  | {
      kind: 's3';
      bucket: string;
      prefix: string;
      region: string;
      endpoint: string | undefined;
      forcePathStyle: boolean;
      credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
    }
  | { kind: 'azure'; container: string; prefix: string; connectionString: string }
  | { kind: 'gcs'; bucket: string; prefix: string; apiEndpoint: string | undefined };

export interface StorageSettings {
  service: ServiceBlobStoreConfig;
  /** 32 bytes; undefined: generated once into the data dir. */
  encryptionKey: Buffer | undefined;
  /** Allow customers' storage endpoints on loopback and private addresses (tests, on-premise). */
  allowPrivateEndpoints: boolean;
  orphanSweepIntervalMs: number;
  /** A blob without a row is removed only once it is older than this (an ingest may still be committing it). */
  orphanGraceMs: number;
}

function prefixOf(url: URL, name: string): string {
  try {
    return normalisePrefix(decodeURIComponent(url.pathname));
  } catch (error) {
    throw new ConfigError(name, error instanceof AppError ? error.message : 'bad prefix');
  }
}

function optionalUrl(env: RawEnv, name: string): string | undefined {
  const raw = env[name];
  if (raw !== undefined && !/^https?:\/\/[^\s/]+(\/\S*)?$/.test(raw)) throw new ConfigError(name, `expected an http:// or https:// URL, got "${raw}"`);
  return raw;
}

/** The S3 companion settings are checked even when MAILROOM_BLOB_URL is not s3://, so a typo never waits for a switch. */
function s3Settings(env: RawEnv) {
  const accessKeyId = env.MAILROOM_S3_ACCESS_KEY_ID;
  const secretAccessKey = env.MAILROOM_S3_SECRET_ACCESS_KEY;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    const given = accessKeyId === undefined ? 'MAILROOM_S3_SECRET_ACCESS_KEY' : 'MAILROOM_S3_ACCESS_KEY_ID';
    throw new ConfigError(given, 'set MAILROOM_S3_ACCESS_KEY_ID and MAILROOM_S3_SECRET_ACCESS_KEY together, or neither (the SDK default chain)');
  }
  const region = env.MAILROOM_S3_REGION ?? 'us-east-1';
  if (!/^[a-z0-9-]{1,50}$/.test(region)) throw new ConfigError('MAILROOM_S3_REGION', `expected a region such as eu-west-1, got "${region}"`);
  return {
    region,
    endpoint: optionalUrl(env, 'MAILROOM_S3_ENDPOINT'),
    forcePathStyle: flag(env, 'MAILROOM_S3_FORCE_PATH_STYLE'),
    credentials: accessKeyId === undefined || secretAccessKey === undefined ? undefined : { accessKeyId, secretAccessKey },
  };
}

function azureConnectionString(env: RawEnv): string | undefined {
  const raw = env.MAILROOM_AZURE_CONNECTION_STRING;
  if (raw !== undefined && !/(^|;)\s*(AccountName|BlobEndpoint)=[^;]+/i.test(raw)) {
    throw new ConfigError('MAILROOM_AZURE_CONNECTION_STRING', 'expected an Azure storage connection string (AccountName=…;AccountKey=…; or BlobEndpoint=…)');
  }
  return raw;
}

function serviceBlobStore(env: RawEnv, dataDir: string): ServiceBlobStoreConfig {
  const s3 = s3Settings(env);
  const connectionString = azureConnectionString(env);
  const gcsEndpoint = optionalUrl(env, 'MAILROOM_GCS_API_ENDPOINT');
  const raw = env.MAILROOM_BLOB_URL;
  if (raw === undefined) return { kind: 'disk', root: resolve(dataDir, 'blobs') };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('MAILROOM_BLOB_URL', `expected file:///path, s3://bucket/prefix, azure://container/prefix or gs://bucket/prefix, got "${raw}"`);
  }
  if (url.protocol !== 'file:' && url.hostname === '') throw new ConfigError('MAILROOM_BLOB_URL', 'the bucket (or container) name is missing');
  switch (url.protocol) {
    case 'file:':
      return { kind: 'disk', root: fileURLToPath(url) };
    case 's3:':
      return { kind: 's3', bucket: url.hostname, prefix: prefixOf(url, 'MAILROOM_BLOB_URL'), ...s3 };
    case 'azure:': {
      if (connectionString === undefined) throw new ConfigError('MAILROOM_AZURE_CONNECTION_STRING', 'required when MAILROOM_BLOB_URL is azure://…');
      return { kind: 'azure', container: url.hostname, prefix: prefixOf(url, 'MAILROOM_BLOB_URL'), connectionString };
    }
    case 'gs:':
      return { kind: 'gcs', bucket: url.hostname, prefix: prefixOf(url, 'MAILROOM_BLOB_URL'), apiEndpoint: gcsEndpoint };
    default:
      throw new ConfigError('MAILROOM_BLOB_URL', `unsupported scheme "${url.protocol}" (file:, s3:, azure: or gs:)`);
  }
}

function encryptionKey(env: RawEnv): Buffer | undefined {
  const raw = env.MAILROOM_STORAGE_ENCRYPTION_KEY;
  if (raw === undefined) return undefined;
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.byteLength !== 32) throw new ConfigError('MAILROOM_STORAGE_ENCRYPTION_KEY', 'expected 32 bytes as 64 hex digits or base64');
  return key;
}

export function storageSettings(env: RawEnv, dataDir: string): StorageSettings {
  return {
    service: serviceBlobStore(env, dataDir),
    encryptionKey: encryptionKey(env),
    allowPrivateEndpoints: flag(env, 'MAILROOM_STORAGE_ALLOW_PRIVATE_ENDPOINTS'),
    orphanSweepIntervalMs: integer(env, 'MAILROOM_BLOB_SWEEP_INTERVAL_MS', 3_600_000, 1000, 7 * 86_400_000),
    orphanGraceMs: integer(env, 'MAILROOM_BLOB_ORPHAN_GRACE_MS', 3_600_000, 0, 30 * 86_400_000),
  };
}
