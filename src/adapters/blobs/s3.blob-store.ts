import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { NotFoundError } from '../../core/errors.js';
import type { BlobInfo, BlobStore, ByteRange } from '../../ports/blob-store.js';
import { httpRange, readAll } from './blob-streams.js';

export interface S3Location {
  bucket: string;
  /** Prepended to every key ("" or ending in "/"). */
  prefix: string;
  region: string;
  /** For S3-compatible services (MinIO, Ceph, R2, …); absent: AWS. */
  endpoint?: string;
  /** Path-style URLs (endpoint/bucket/key), which most S3-compatible services need. */
  forcePathStyle: boolean;
  /** Absent: the SDK's default chain (environment, instance profile, …). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Agents every connection goes through (a tenant's bucket: the egress guard); absent: the SDK's own. */
  agents?: { httpAgent: HttpAgent; httpsAgent: HttpsAgent };
}

/** Streamed bodies above this go up as a multipart upload, in parts of this size (S3's minimum is 5 MiB). */
const PART_BYTES = 8 * 1024 * 1024;

const isNotFound = (error: unknown): boolean => (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;

/** Blobs as objects in an S3 bucket (AWS or any S3-compatible service). */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;

  constructor(private readonly location: S3Location) {
    this.client = new S3Client({
      region: location.region,
      endpoint: location.endpoint,
      forcePathStyle: location.forcePathStyle,
      credentials: location.credentials,
      ...(location.agents ? { requestHandler: { httpAgent: location.agents.httpAgent, httpsAgent: location.agents.httpsAgent } } : {}),
      // Checksums only where S3 demands them: with the default, a streamed body is sent aws-chunked and
      // several S3-compatible servers store the chunk framing as part of the object (stack-notes §3).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private objectKey(key: string): string {
    return this.location.prefix + key;
  }

  async put(key: string, data: Buffer | Readable, contentType: string): Promise<string> {
    const params = { Bucket: this.location.bucket, Key: this.objectKey(key), ContentType: contentType };
    if (Buffer.isBuffer(data)) {
      await this.client.send(new PutObjectCommand({ ...params, Body: data, ContentLength: data.byteLength }));
      return key;
    }
    await new Upload({ client: this.client, params: { ...params, Body: data }, partSize: PART_BYTES, queueSize: 2 }).done();
    return key;
  }

  /** One PUT with the file's length, its body streamed from the file (no part buffers, unlike a multipart upload). */
  async putFile(key: string, path: string, contentType: string): Promise<string> {
    const { size } = await stat(path);
    const body = createReadStream(path);
    try {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key), ContentType: contentType, Body: body, ContentLength: size }),
      );
    } finally {
      body.destroy();
    }
    return key;
  }

  async getStream(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const response = await this.client.send(
        new GetObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key), Range: range === undefined ? undefined : httpRange(range) }),
      );
      return response.Body as Readable;
    } catch (error) {
      if (isNotFound(error)) throw new NotFoundError('BLOB_NOT_FOUND', `no blob at ${key}`);
      throw error;
    }
  }

  async getBuffer(key: string): Promise<Buffer> {
    return readAll(await this.getStream(key));
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }));
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  async *list(prefix: string): AsyncIterable<BlobInfo> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.location.bucket, Prefix: this.objectKey(prefix), ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined) continue;
        yield { key: object.Key.slice(this.location.prefix.length), size: object.Size ?? 0, lastModified: object.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  close(): void {
    this.client.destroy();
  }
}
