import { InvalidInputError } from './errors.js';
import type { StorageProvider } from './vocab.js';

/** Where a tenant's bucket is; everything about it but the credentials. */
export interface StorageTarget {
  provider: StorageProvider;
  /** The S3 or GCS bucket, or the Azure container. */
  bucket: string;
  region: string | null;
  endpoint: string | null;
  forcePathStyle: boolean;
  /** Prepended to every object path: "" or a path ending in "/". */
  prefix: string;
}

/** The secret half, per provider; stored only encrypted and never returned or logged. */
export type StorageCredentials =
  | { provider: 'S3'; accessKeyId: string; secretAccessKey: string }
  | { provider: 'AZURE_BLOB'; connectionString: string }
  | { provider: 'AZURE_BLOB'; accountName: string; accountKey: string }
  | { provider: 'GCS'; clientEmail: string; privateKey: string; projectId: string | null };

/** A tenant's storage configuration as kept: immutable once saved; a new PUT makes a new one. */
export interface CustomStorage extends StorageTarget {
  id: string;
  tenantId: string;
  /** Keep no bodies and no snippet in the database: only headers and envelope metadata. */
  metadataOnly: boolean;
  createdAt: string;
}

/** What PUT /storage accepts, before validation. */
export interface StorageInput {
  provider: StorageProvider;
  bucket: string;
  region?: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  prefix?: string;
  metadataOnly?: boolean;
  credentials: {
    accessKeyId?: string;
    secretAccessKey?: string;
    connectionString?: string;
    accountName?: string;
    accountKey?: string;
    serviceAccountJson?: string;
  };
}

const invalid = (field: string, message: string) => new InvalidInputError('INVALID_STORAGE_CONFIG', message, { field });

const BUCKET_RULES: Record<StorageProvider, { pattern: RegExp; rule: string }> = {
  S3: { pattern: /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, rule: '3 to 63 lowercase letters, digits, dots and hyphens' },
  AZURE_BLOB: { pattern: /^[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]$/, rule: 'a container name: 3 to 63 lowercase letters, digits and single hyphens' },
  GCS: { pattern: /^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$/, rule: '3 to 63 lowercase letters, digits, dots, hyphens and underscores' },
};

const PREFIX_SEGMENT = /^[A-Za-z0-9!_.*'()-]+$/;

/** "mail", "/mail/in/" → "mail/", "mail/in/"; each segment plain, so the documented layout stays predictable. */
export function normalisePrefix(prefix: string | undefined): string {
  const segments = (prefix ?? '').split('/').filter((s) => s !== '');
  for (const segment of segments) {
    if (!PREFIX_SEGMENT.test(segment) || segment === '.' || segment === '..') {
      throw invalid('prefix', `prefix segment "${segment}" may only hold letters, digits and !_.*'()-`);
    }
  }
  const joined = segments.join('/');
  if (joined.length > 200) throw invalid('prefix', 'prefix is longer than 200 characters');
  return joined === '' ? '' : `${joined}/`;
}

function endpointOf(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid('endpoint', 'endpoint is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid('endpoint', 'endpoint must be an http:// or https:// URL');
  if (url.username !== '' || url.password !== '') throw invalid('endpoint', 'endpoint must not carry credentials; use the credentials object');
  return url.toString().replace(/\/$/, '');
}

const required = (value: string | undefined, field: string): string => {
  if (value === undefined || value.trim() === '') throw invalid(`credentials.${field}`, `credentials.${field} is required for this provider`);
  return value;
};

function gcsCredentials(json: string): StorageCredentials {
  let key: { client_email?: unknown; private_key?: unknown; project_id?: unknown };
  try {
    key = JSON.parse(json) as typeof key;
  } catch {
    throw invalid('credentials.serviceAccountJson', 'credentials.serviceAccountJson is not JSON (paste the whole service-account key file)');
  }
  if (typeof key.client_email !== 'string' || typeof key.private_key !== 'string') {
    throw invalid('credentials.serviceAccountJson', 'credentials.serviceAccountJson needs client_email and private_key');
  }
  return { provider: 'GCS', clientEmail: key.client_email, privateKey: key.private_key, projectId: typeof key.project_id === 'string' ? key.project_id : null };
}

/** Azure's rule; the account name becomes part of the host name the SDK calls. */
function azureAccountName(name: string): string {
  if (!/^[a-z0-9]{3,24}$/.test(name)) throw invalid('credentials.accountName', 'credentials.accountName must be 3 to 24 lowercase letters and digits');
  return name;
}

function credentialsOf(input: StorageInput): StorageCredentials {
  const c = input.credentials;
  switch (input.provider) {
    case 'S3':
      return { provider: 'S3', accessKeyId: required(c.accessKeyId, 'accessKeyId'), secretAccessKey: required(c.secretAccessKey, 'secretAccessKey') };
    case 'AZURE_BLOB':
      if (c.connectionString !== undefined) return { provider: 'AZURE_BLOB', connectionString: required(c.connectionString, 'connectionString') };
      return { provider: 'AZURE_BLOB', accountName: azureAccountName(required(c.accountName, 'accountName')), accountKey: required(c.accountKey, 'accountKey') };
    case 'GCS':
      return gcsCredentials(required(c.serviceAccountJson, 'serviceAccountJson'));
  }
}

/**
 * Checks a PUT /storage body and splits it into the public target and the secret credentials.
 * Credentials are always required: without them an SDK would fall back to the service's own
 * identity, which must never reach a customer's bucket choice.
 */
export function parseStorageInput(input: StorageInput): { target: StorageTarget; credentials: StorageCredentials; metadataOnly: boolean } {
  const rule = BUCKET_RULES[input.provider];
  if (!rule.pattern.test(input.bucket)) throw invalid('bucket', `bucket must be ${rule.rule}`);
  const region = input.region === undefined || input.region === '' ? null : input.region;
  if (region !== null && !/^[a-z0-9-]{1,50}$/.test(region)) throw invalid('region', 'region must be lowercase letters, digits and hyphens, such as eu-west-1');
  const target: StorageTarget = {
    provider: input.provider,
    bucket: input.bucket,
    region,
    endpoint: endpointOf(input.endpoint),
    forcePathStyle: input.forcePathStyle ?? false,
    prefix: normalisePrefix(input.prefix),
  };
  return { target, credentials: credentialsOf(input), metadataOnly: input.metadataOnly ?? false };
}

/** Database blob keys of mail in a tenant's bucket start with this, then the storage id (see blob key layout). */
const CUSTOM_KEY_ROOT = 'tenant-storage/';

/** The blob key recorded on the email row: names the storage configuration and the object path in its bucket. */
export const customBlobKey = (storageId: string, objectPath: string): string => `${CUSTOM_KEY_ROOT}${storageId}/${objectPath}`;

export function parseCustomBlobKey(key: string): { storageId: string; objectPath: string } | undefined {
  if (!key.startsWith(CUSTOM_KEY_ROOT)) return undefined;
  const rest = key.slice(CUSTOM_KEY_ROOT.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  return { storageId: rest.slice(0, slash), objectPath: rest.slice(slash + 1) };
}

/** Keeps a file name usable as the last segment of an object path: no separators, no control characters. */
export function safeObjectName(filename: string): string {
  const cleaned = [...filename.normalize('NFC')]
    .map((char) => (char === '/' || char === '\\' || char.charCodeAt(0) < 0x20 || char === '\u007f' ? '_' : char))
    .join('')
    .replace(/^\.+/, '')
    .slice(0, 200);
  return cleaned === '' ? 'attachment' : cleaned;
}

/** The documented layout (docs/storage.md): <tenant>/<yyyy>/<mm>/<dd>/<emailId>/…, dated by arrival (UTC). */
export const customObjectPaths = {
  emailFolder: (tenantId: string, emailId: string, receivedAt: string): string => {
    const [date] = receivedAt.split('T') as [string];
    return `${tenantId}/${date.replaceAll('-', '/')}/${emailId}/`;
  },
  eml: (folder: string): string => `${folder}message.eml`,
  attachment: (folder: string, attachmentId: string, filename: string): string => `${folder}attachments/${attachmentId}/${safeObjectName(filename)}`,
};

/** The path of an object in the customer's bucket, as the webhook payload's storagePath shows it. */
export const storagePathOf = (storage: StorageTarget, objectPath: string): string => storage.prefix + objectPath;

/** Where one email is in a customer's bucket, as the webhook payload reports it (spec 2.9). */
export interface CustomStorageLocation {
  provider: StorageProvider;
  bucket: string;
  /** The EML's path in the bucket. */
  storagePath: string;
  /** Attachment id → its path in the bucket. */
  attachmentPaths: Record<string, string>;
}

/**
 * What a customer sees of their provider's error: its code or name only (`NoSuchBucket`,
 * `AuthorizationFailure`, `ECONNREFUSED`). The message could quote whatever the endpoint answered,
 * so it goes to the server log only.
 */
export function providerErrorName(error: unknown): string {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  const label = [code, name].find((value) => typeof value === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(value) && value !== 'Error');
  return (label as string | undefined) ?? 'provider error';
}
