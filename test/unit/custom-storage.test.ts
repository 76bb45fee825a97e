import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/adapters/secrets/secret-box.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import {
  customBlobKey,
  customObjectPaths,
  normalisePrefix,
  parseCustomBlobKey,
  parseStorageInput,
  safeObjectName,
  type StorageInput,
} from '../../src/core/custom-storage.js';
import { InvalidInputError } from '../../src/core/errors.js';

const s3Input = (extra: Partial<StorageInput> = {}): StorageInput => ({
  provider: 'S3',
  bucket: 'my-bucket',
  credentials: { accessKeyId: 'AKIA', secretAccessKey: 'secret' },
  ...extra,
});

const fieldOf = (work: () => unknown): string | undefined => {
  try {
    work();
  } catch (error) {
    if (error instanceof InvalidInputError) return error.details?.field as string;
    throw error;
  }
  return undefined;
};

describe('custom storage input', () => {
  it('splits the body into the public target and the secret credentials, with defaults', () => {
    expect(parseStorageInput(s3Input({ prefix: '/mail/in' }))).toEqual({
      target: { provider: 'S3', bucket: 'my-bucket', region: null, endpoint: null, forcePathStyle: false, prefix: 'mail/in/' },
      credentials: { provider: 'S3', accessKeyId: 'AKIA', secretAccessKey: 'secret' },
      metadataOnly: false,
    });
  });

  it('names the offending field', () => {
    expect(fieldOf(() => parseStorageInput(s3Input({ bucket: 'Upper_Case' })))).toBe('bucket');
    expect(fieldOf(() => parseStorageInput(s3Input({ endpoint: 'ftp://x' })))).toBe('endpoint');
    expect(fieldOf(() => parseStorageInput(s3Input({ endpoint: 'https://user:pw@x.example' })))).toBe('endpoint');
    expect(fieldOf(() => parseStorageInput(s3Input({ region: 'EU WEST' })))).toBe('region');
    expect(fieldOf(() => parseStorageInput(s3Input({ credentials: { accessKeyId: 'a' } })))).toBe('credentials.secretAccessKey');
    expect(fieldOf(() => parseStorageInput({ provider: 'AZURE_BLOB', bucket: 'mail', credentials: { accountName: 'acct' } }))).toBe('credentials.accountKey');
    expect(fieldOf(() => parseStorageInput({ provider: 'GCS', bucket: 'mail', credentials: { serviceAccountJson: '{"client_email":"x"}' } }))).toBe('credentials.serviceAccountJson');
    expect(fieldOf(() => parseStorageInput({ provider: 'GCS', bucket: 'mail', credentials: { serviceAccountJson: 'not json' } }))).toBe('credentials.serviceAccountJson');
  });

  it('accepts each provider\'s credential forms', () => {
    expect(parseStorageInput({ provider: 'AZURE_BLOB', bucket: 'mail', credentials: { connectionString: 'AccountName=a;AccountKey=b' } }).credentials).toEqual({ provider: 'AZURE_BLOB', connectionString: 'AccountName=a;AccountKey=b' });
    const gcs = parseStorageInput({ provider: 'GCS', bucket: 'mail', credentials: { serviceAccountJson: JSON.stringify({ client_email: 'sa@p.iam', private_key: 'k', project_id: 'p' }) } });
    expect(gcs.credentials).toEqual({ provider: 'GCS', clientEmail: 'sa@p.iam', privateKey: 'k', projectId: 'p' });
  });

  it('keeps prefixes plain', () => {
    expect(normalisePrefix(undefined)).toBe('');
    expect(normalisePrefix('//a//b/')).toBe('a/b/');
    expect(fieldOf(() => normalisePrefix('a/../b'))).toBe('prefix');
    expect(fieldOf(() => normalisePrefix('a b'))).toBe('prefix');
  });
});

describe('custom storage layout', () => {
  it('lays mail out as <tenant>/<yyyy>/<mm>/<dd>/<emailId>/… and records the configuration in the key', () => {
    const folder = customObjectPaths.emailFolder('t1', 'e1', '2026-11-21T06:00:00.000Z');
    expect(customObjectPaths.eml(folder)).toBe('t1/2026/11/21/e1/message.eml');
    expect(customObjectPaths.attachment(folder, 'a1', 'report.pdf')).toBe('t1/2026/11/21/e1/attachments/a1/report.pdf');
    const key = customBlobKey('s1', customObjectPaths.eml(folder));
    expect(parseCustomBlobKey(key)).toEqual({ storageId: 's1', objectPath: 't1/2026/11/21/e1/message.eml' });
    expect(parseCustomBlobKey('emails/t1/e1/message.eml')).toBeUndefined();
  });

  it('makes any attachment file name a single safe path segment', () => {
    expect(safeObjectName('../../etc/passwd')).toBe('_.._etc_passwd');
    expect(safeObjectName('a\\b\u0000c')).toBe('a_b_c');
    expect(safeObjectName('...')).toBe('attachment');
    expect(safeObjectName('')).toBe('attachment');
  });
});

describe('storage credentials encryption', () => {
  it('round-trips, and refuses another row\'s context or a tampered ciphertext', () => {
    const box = new SecretBox(Buffer.alloc(32, 7));
    const sealed = box.seal('{"secretAccessKey":"s"}', 'row-1');
    expect(sealed).not.toContain('secretAccessKey');
    expect(box.open(sealed, 'row-1')).toBe('{"secretAccessKey":"s"}');
    expect(() => box.open(sealed, 'row-2')).toThrow();
    expect(() => new SecretBox(Buffer.alloc(32, 8)).open(sealed, 'row-1')).toThrow();
  });
});


describe('MAILROOM_BLOB_URL', () => {
  const load = (env: Record<string, string>) => loadConfig({ MAILROOM_DATA_DIR: '/var/lib/mailroom', ...env }).storage;

  it('defaults to the data dir and parses each scheme', () => {
    expect(load({}).service).toEqual({ kind: 'disk', root: '/var/lib/mailroom/blobs' });
    expect(load({ MAILROOM_BLOB_URL: 'file:///srv/blobs' }).service).toEqual({ kind: 'disk', root: '/srv/blobs' });
    expect(load({ MAILROOM_BLOB_URL: 's3://mail-bucket/mailroom/prod', MAILROOM_S3_ENDPOINT: 'http://minio:9000', MAILROOM_S3_FORCE_PATH_STYLE: '1' }).service).toEqual({
      kind: 's3',
      bucket: 'mail-bucket',
      prefix: 'mailroom/prod/',
      region: 'us-east-1',
      endpoint: 'http://minio:9000',
      forcePathStyle: true,
      credentials: undefined,
    });
    expect(load({ MAILROOM_BLOB_URL: 'azure://mail', MAILROOM_AZURE_CONNECTION_STRING: 'AccountName=a;AccountKey=b' }).service).toMatchObject({ kind: 'azure', container: 'mail', prefix: '' });
    expect(load({ MAILROOM_BLOB_URL: 'gs://mail/p' }).service).toMatchObject({ kind: 'gcs', bucket: 'mail', prefix: 'p/' });
  });

  it('names the variable that is wrong', () => {
    const variable = (env: Record<string, string>) => {
      try {
        load(env);
      } catch (error) {
        return error instanceof ConfigError ? error.message : String(error);
      }
      return 'accepted';
    };
    expect(variable({ MAILROOM_BLOB_URL: 'ftp://x/y' })).toContain('MAILROOM_BLOB_URL');
    expect(variable({ MAILROOM_BLOB_URL: 's3://b', MAILROOM_S3_ACCESS_KEY_ID: 'a' })).toContain('MAILROOM_S3_SECRET_ACCESS_KEY');
    expect(variable({ MAILROOM_BLOB_URL: 'azure://c' })).toContain('MAILROOM_AZURE_CONNECTION_STRING');
    expect(variable({ MAILROOM_STORAGE_ENCRYPTION_KEY: 'short' })).toContain('MAILROOM_STORAGE_ENCRYPTION_KEY');
    expect(load({ MAILROOM_STORAGE_ENCRYPTION_KEY: 'ab'.repeat(32) }).encryptionKey).toEqual(Buffer.alloc(32, 0xab));
  });
});
