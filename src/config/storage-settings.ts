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

function s3(env: RawEnv, url: URL): ServiceBlobStoreConfig {
  const accessKeyId = env.MAILROOM_S3_ACCESS_KEY_ID;
  const secretAccessKey = env.MAILROOM_S3_SECRET_ACCESS_KEY;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError(accessKeyId === undefined ? 'MAILROOM_S3_ACCESS_KEY_ID' : 'MAILROOM_S3_SECRET_ACCESS_KEY', 'set both S3 keys, or neither (the SDK default chain)');
  }
  const endpoint = env.MAILROOM_S3_ENDPOINT;
  if (endpoint !== undefined && !/^https?:\/\/[^\s/]+/.test(endpoint)) throw new ConfigError('MAILROOM_S3_ENDPOINT', `expected an http:// or https:// URL, got "${endpoint}"`);
  return {
    kind: 's3',
    bucket: url.hostname,
    prefix: prefixOf(url, 'MAILROOM_BLOB_URL'),
    region: env.MAILROOM_S3_REGION ?? 'us-east-1',
    endpoint,
    forcePathStyle: flag(env, 'MAILROOM_S3_FORCE_PATH_STYLE'),
    credentials: accessKeyId === undefined || secretAccessKey === undefined ? undefined : { accessKeyId, secretAccessKey },
  };
}

function serviceBlobStore(env: RawEnv, dataDir: string): ServiceBlobStoreConfig {
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
      return s3(env, url);
    case 'azure:': {
      const connectionString = env.MAILROOM_AZURE_CONNECTION_STRING;
      if (connectionString === undefined) throw new ConfigError('MAILROOM_AZURE_CONNECTION_STRING', 'required when MAILROOM_BLOB_URL is azure://…');
      return { kind: 'azure', container: url.hostname, prefix: prefixOf(url, 'MAILROOM_BLOB_URL'), connectionString };
    }
    case 'gs:':
      return { kind: 'gcs', bucket: url.hostname, prefix: prefixOf(url, 'MAILROOM_BLOB_URL'), apiEndpoint: env.MAILROOM_GCS_API_ENDPOINT };
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
