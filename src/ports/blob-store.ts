import type { Readable } from 'node:stream';

/**
 * Where raw EML and attachment bytes live. Keys are relative paths built by adapters/blobs/blob-keys.ts.
 * The promise: `put` resolves only once the bytes are durable; `delete` of a missing key is not an error;
 * reading a missing key throws a NotFoundError. Write order (docs/decisions.md): blob first, row commit after,
 * and on delete the row goes first, the blobs after.
 */
export interface BlobStore {
  put(key: string, data: Buffer | Readable, contentType: string): Promise<void>;
  getStream(key: string): Promise<Readable>;
  getBuffer(key: string): Promise<Buffer>;
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
}
