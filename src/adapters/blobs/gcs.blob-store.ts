import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { Storage, type Bucket, type StorageOptions } from '@google-cloud/storage';
import { NotFoundError } from '../../core/errors.js';
import type { BlobInfo, BlobStore, ByteRange } from '../../ports/blob-store.js';

export interface GcsServiceAccount {
  client_email: string;
  private_key: string;
  project_id?: string;
}

export interface GcsLocation {
  bucket: string;
  /** Prepended to every object name ("" or ending in "/"). */
  prefix: string;
  /** Absent: Application Default Credentials. */
  credentials?: GcsServiceAccount;
  /** JSON API endpoint (a private endpoint, or a local server in tests); absent: storage.googleapis.com. */
  apiEndpoint?: string;
  /** A tenant's bucket: every connection goes through the egress guard; absent: the SDK's own connections. */
  egress?: GcsEgress;
}

/**
 * The SDK makes its JSON API calls with teeny-request, which takes a proxy but no agent, and its
 * resumable uploads with gaxios, which takes an agent: both are given, both guarded.
 */
export interface GcsEgress {
  agents: { httpAgent: HttpAgent; httpsAgent: HttpsAgent };
  /** A guarded forward proxy (guarded-proxy.ts). */
  proxyUrl: string;
}

type Interceptor = NonNullable<StorageOptions['interceptors_']>[number];

/** Applied by the SDK to every request's options (JSON API calls and resumable uploads alike). */
function egressInterceptor({ agents, proxyUrl }: GcsEgress): Interceptor {
  const agent = (url: URL) => (url.protocol === 'https:' ? agents.httpsAgent : agents.httpAgent);
  // The SDK types the options as the request library's; they are passed through as they are.
  return { request: (options) => ({ ...options, proxy: proxyUrl, agent }) as unknown as ReturnType<Interceptor['request']> };
}

/** Streamed bodies use a resumable upload in chunks of this size; buffers go up in one multipart request. */
const CHUNK_BYTES = 8 * 1024 * 1024;

const isNotFound = (error: unknown): boolean => (error as { code?: number }).code === 404;

/** Blobs as objects in a Google Cloud Storage bucket. */
export class GcsBlobStore implements BlobStore {
  private readonly bucket: Bucket;

  constructor(private readonly location: GcsLocation) {
    const storage = new Storage({
      apiEndpoint: location.apiEndpoint,
      projectId: location.credentials?.project_id ?? 'mailroom',
      credentials: location.credentials,
      // The SDK drops authentication for a custom endpoint unless told otherwise.
      useAuthWithCustomEndpoint: location.credentials !== undefined,
      interceptors_: location.egress === undefined ? [] : [egressInterceptor(location.egress)],
    });
    this.bucket = storage.bucket(location.bucket);
  }

  private file(key: string) {
    return this.bucket.file(this.location.prefix + key);
  }

  async put(key: string, data: Buffer | Readable, contentType: string): Promise<string> {
    if (Buffer.isBuffer(data)) await this.file(key).save(data, { resumable: false, contentType });
    else await pipeline(data, this.file(key).createWriteStream({ resumable: true, chunkSize: CHUNK_BYTES, contentType }));
    return key;
  }

  /** One multipart request whose body the SDK streams from the file. */
  async putFile(key: string, path: string, contentType: string): Promise<string> {
    await this.bucket.upload(path, { destination: this.location.prefix + key, resumable: false, contentType });
    return key;
  }

  async getStream(key: string, range?: ByteRange): Promise<Readable> {
    // The read stream is lazy and would report a missing object only once read: ask first, so a
    // missing blob is a NotFoundError here as with every other store.
    if (!(await this.exists(key))) throw new NotFoundError('BLOB_NOT_FOUND', `no blob at ${key}`);
    return this.file(key).createReadStream(range === undefined ? {} : { start: range.start, end: range.end });
  }

  async getBuffer(key: string): Promise<Buffer> {
    try {
      const [contents] = await this.file(key).download();
      return contents;
    } catch (error) {
      if (isNotFound(error)) throw new NotFoundError('BLOB_NOT_FOUND', `no blob at ${key}`);
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.file(key).delete({ ignoreNotFound: true });
  }

  async exists(key: string): Promise<boolean> {
    const [exists] = await this.file(key).exists();
    return exists;
  }

  async *list(prefix: string): AsyncIterable<BlobInfo> {
    let pageToken: string | undefined;
    do {
      const [files, next] = await this.bucket.getFiles({ prefix: this.location.prefix + prefix, autoPaginate: false, pageToken });
      for (const file of files) {
        yield {
          key: file.name.slice(this.location.prefix.length),
          size: Number(file.metadata.size ?? 0),
          lastModified: new Date(file.metadata.updated ?? 0),
        };
      }
      pageToken = (next as { pageToken?: string } | null)?.pageToken;
    } while (pageToken !== undefined);
  }
}
