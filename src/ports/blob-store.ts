import type { Readable } from 'node:stream';

/** Bytes `start` to `end` of a blob, both inclusive (as in an HTTP Range header); no `end`: to the last byte. */
export interface ByteRange {
  start: number;
  end?: number;
}

/** One stored blob as a listing reports it. */
export interface BlobInfo {
  key: string;
  size: number;
  lastModified: Date;
}

/**
 * Where raw EML and attachment bytes live. Keys are relative paths built by adapters/blobs/blob-keys.ts.
 * The promise: `put` resolves only once the bytes are durable, to the key to read them back by (the key
 * given, or one a store builds from it that starts with it, as the disk store's segment records do:
 * the rows keep what `put` returned); `delete` of a missing key is not an error;
 * reading a missing key throws a NotFoundError. Write order (docs/decisions.md): blob first, row commit after,
 * and on delete the row goes first, the blobs after; `list` lets the orphan sweep find what a crash left.
 */
export interface BlobStore {
  /** A Readable body is streamed (multipart upload where the store has it), never buffered whole. */
  put(key: string, data: Buffer | Readable, contentType: string): Promise<string>;
  /**
   * Stores the file at `path` (a spooled message) without reading it into memory. The file is
   * left in place: one spooled message may be stored under several keys (one per tenant).
   */
  putFile(key: string, path: string, contentType: string): Promise<string>;
  getStream(key: string, range?: ByteRange): Promise<Readable>;
  getBuffer(key: string): Promise<Buffer>;
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** Every blob whose key starts with `prefix`, in no particular order, fetched page by page. */
  list(prefix: string): AsyncIterable<BlobInfo>;
}
