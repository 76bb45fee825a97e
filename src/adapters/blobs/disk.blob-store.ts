import { constants } from 'node:fs';
import { copyFile, mkdir, open, opendir, readFile, rename, rm, rmdir, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../../core/errors.js';
import type { BlobInfo, BlobStore, ByteRange } from '../../ports/blob-store.js';
import { FLAGS_OFFSET, DELETED, HEADER_BYTES, readHeader, recordBytes, recordHead, type RecordHeader } from './segment-record.js';
import { isSegmentFile, parseSegmentKey, segmentKey, type SegmentKey } from './segment-key.js';
import { SEGMENT_IDLE_CLOSE_MS, SegmentWriter } from './segment-writer.js';

/** Keys blob-keys.ts builds are far shorter; a record's key is read with its header in one read. */
const KEY_READ_BYTES = 512;
/** Zeroes written per call when a deleted record is wiped. */
const WIPE_CHUNK = 64 * 1024;

/** A live record found by its key: its header and where its bytes start in its segment. */
interface OpenRecord {
  header: RecordHeader;
  dataStart: number;
}

/**
 * Blobs under one root, durable before a put resolves. A buffer (what ingest puts: every EML and
 * attachment) is appended as a record to the segment file of its folder (a tenant's day), one
 * fdatasync for every put waiting on it, and `put` returns the key to read it by (segment-key.ts;
 * docs/decisions.md D72). A stream and a file copy keep a file of their own, written to a temporary
 * name, fdatasynced and renamed into place, as do the blobs stored before segments.
 */
export class DiskBlobStore implements BlobStore {
  private readonly root: string;
  private readonly writer: SegmentWriter;
  private readonly idleCloseMs: number;

  constructor(root: string, options: { segmentRotateBytes?: number; segmentIdleCloseMs?: number } = {}) {
    this.root = resolve(root);
    this.idleCloseMs = options.segmentIdleCloseMs ?? SEGMENT_IDLE_CLOSE_MS;
    this.writer = new SegmentWriter({ rotateBytes: options.segmentRotateBytes, idleCloseMs: this.idleCloseMs });
  }

  /** Flushes and closes the open segments; a later write starts a new one. */
  async close(): Promise<void> {
    await this.writer.close();
  }

  private pathOf(key: string): string {
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep) || key.includes('#')) throw new Error(`blob key escapes the store: ${key}`);
    return path;
  }

  async put(key: string, data: Buffer | Readable, _contentType: string): Promise<string> {
    const path = this.pathOf(key);
    if (Buffer.isBuffer(data)) {
      const { segment, offset } = await this.writer.append(dirname(path), recordHead(key, data.byteLength, Date.now()), data);
      return segmentKey({ key, segment, offset });
    }
    return this.writeOwnFile(key, async (file) => {
      for await (const chunk of data) await file.write(chunk as Buffer);
    });
  }

  /** A kernel-side copy (a reflink where the filesystem has them), kept as its own file as a stream's is. */
  async putFile(key: string, source: string, _contentType: string): Promise<string> {
    // The copy truncates and fills the temporary file `writeOwnFile` holds open (the same inode), and
    // gives it the source's mode, so it is made private again afterwards.
    return this.writeOwnFile(key, async (file, temporary) => {
      await copyFile(source, temporary, constants.COPYFILE_FICLONE);
      await file.chmod(0o600);
    });
  }

  /**
   * A blob as a file of its own: `fill` writes a temporary file, which is fdatasynced and renamed into
   * place, or removed if anything fails. Mail is private to its tenant: readable by the service's user
   * only, whatever the umask.
   */
  private async writeOwnFile(key: string, fill: (file: FileHandle, temporary: string) => Promise<void>): Promise<string> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const temporary = `${path}.${randomUUID()}.tmp`;
    const file = await open(temporary, 'w', 0o600);
    try {
      await fill(file, temporary);
      await file.datasync();
    } catch (error) {
      await file.close();
      await rm(temporary, { force: true });
      throw error;
    }
    await file.close();
    await rename(temporary, path);
    return key;
  }

  async getStream(key: string, range?: ByteRange): Promise<Readable> {
    const located = parseSegmentKey(key);
    // Both kinds stream through the handle that found the blob: one open, and a file removed in
    // between cannot turn a found blob into a stream error.
    const { file, dataStart, dataLength } = located === undefined ? await this.openFile(key) : await this.openRecordBytes(key, located);
    const first = range?.start ?? 0;
    const last = Math.min(range?.end ?? Number.MAX_SAFE_INTEGER, dataLength - 1);
    if (last < first) {
      await file.close();
      return Readable.from([]);
    }
    return file.createReadStream({ start: dataStart + first, end: dataStart + last });
  }

  async getBuffer(key: string): Promise<Buffer> {
    const located = parseSegmentKey(key);
    if (located === undefined) return readFile(this.pathOf(key)).catch((error: unknown) => Promise.reject(this.translate(key, error)));
    return this.withRecord(key, located, 'r', async ({ header, dataStart }, file) => {
      const bytes = Buffer.allocUnsafe(header.dataLength);
      await readFully(file, bytes, dataStart);
      return bytes;
    });
  }

  /**
   * A record's key and bytes are overwritten with zeros, then it is flagged deleted, so deleted mail
   * leaves no bytes on disk; its segment file goes once no live record is left in it (`list`).
   */
  async delete(key: string): Promise<void> {
    const located = parseSegmentKey(key);
    if (located === undefined) return this.deleteFile(key);
    await this.withRecord(key, located, 'r+', async ({ header }, file) => {
      await wipe(file, located.offset + HEADER_BYTES, header.keyLength + header.dataLength);
      await file.write(Buffer.of(DELETED), 0, 1, located.offset + FLAGS_OFFSET);
    }).catch((error: unknown) => {
      if (!(error instanceof NotFoundError)) throw error;
    });
  }

  async exists(key: string): Promise<boolean> {
    const located = parseSegmentKey(key);
    try {
      if (located === undefined) await stat(this.pathOf(key));
      else await this.withRecord(key, located, 'r', async () => undefined);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Files, and the live records of segment files, whose keys start with `prefix`. A segment with no
   * live record left is listed itself, under its own path, so the orphan sweep removes it, once
   * unchanged for twice the idle time after which a writer closes it: no node still appends to it.
   */
  async *list(prefix: string): AsyncIterable<BlobInfo> {
    // Only the folder the prefix names is walked, not the whole store.
    const folder = prefix.slice(0, prefix.lastIndexOf('/') + 1);
    for await (const path of this.filesUnder(folder === '' ? this.root : this.pathOf(folder))) {
      const key = relative(this.root, path).split(sep).join('/');
      if (isSegmentFile(basename(path))) {
        yield* this.listSegment(path, key, prefix);
        continue;
      }
      if (!key.startsWith(prefix)) continue;
      const info = await stat(path).catch(() => undefined);
      if (info !== undefined) yield { key, size: info.size, lastModified: info.mtime };
    }
  }

  private async *listSegment(path: string, key: string, prefix: string): AsyncIterable<BlobInfo> {
    const file = await open(path, 'r').catch(() => undefined);
    if (file === undefined) return;
    let live = 0;
    try {
      const { size, mtime } = await file.stat();
      const scratch = Buffer.alloc(HEADER_BYTES + KEY_READ_BYTES);
      for (let offset = 0; offset + HEADER_BYTES <= size; ) {
        const record = await readRecordHead(file, offset, scratch);
        // A torn tail (the thread stopped mid-append) ends the segment: nothing points past it.
        if (record === undefined || offset + recordBytes(record.header) > size) break;
        const { header, key: recordKey } = record;
        if (!header.deleted) {
          live++;
          if (recordKey.startsWith(prefix)) {
            yield { key: segmentKey({ key: recordKey, segment: basename(path), offset }), size: header.dataLength, lastModified: new Date(header.writtenAt) };
          }
        }
        offset += recordBytes(header);
      }
      if (live === 0 && key.startsWith(prefix) && Date.now() - mtime.getTime() > 2 * this.idleCloseMs) yield { key, size, lastModified: mtime };
    } finally {
      await file.close();
    }
  }

  private async *filesUnder(dir: string): AsyncIterable<string> {
    const entries = await opendir(dir).catch(() => undefined);
    if (entries === undefined) return;
    for await (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) yield* this.filesUnder(path);
      else if (entry.isFile()) yield path;
    }
  }

  /** `work` on the live record whose header names `key`'s put key (or NotFoundError), its file open meanwhile. */
  private async withRecord<T>(key: string, located: SegmentKey, flags: 'r' | 'r+', work: (record: OpenRecord, file: FileHandle) => Promise<T>): Promise<T> {
    const { record, file } = await this.openRecord(key, located, flags);
    try {
      return await work(record, file);
    } finally {
      await file.close();
    }
  }

  /** The live record whose header names `key`'s put key, with its segment open (the caller closes it), or NotFoundError. */
  private async openRecord(key: string, located: SegmentKey, flags: 'r' | 'r+'): Promise<{ record: OpenRecord; file: FileHandle }> {
    const path = join(dirname(this.pathOf(located.key)), located.segment);
    const file = await open(path, flags).catch((error: unknown) => Promise.reject(this.translate(key, error)));
    try {
      const head = await readRecordHead(file, located.offset, Buffer.alloc(HEADER_BYTES + KEY_READ_BYTES));
      if (head === undefined || head.header.deleted || head.key !== located.key) throw new NotFoundError('BLOB_NOT_FOUND', `no blob at ${key}`);
      return { record: { header: head.header, dataStart: located.offset + HEADER_BYTES + head.header.keyLength }, file };
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  /** A dead segment goes through the segment writer, which keeps it while it still appends to it. */
  private async deleteFile(key: string): Promise<void> {
    const path = this.pathOf(key);
    if (isSegmentFile(basename(path))) {
      if (!(await this.writer.removeSegment(path))) return;
    } else {
      await rm(path, { force: true });
    }
    await this.removeEmptyParents(dirname(path));
  }

  /** A blob stored as its own file, open (the caller closes it), or NotFoundError. */
  private async openFile(key: string): Promise<{ file: FileHandle; dataStart: number; dataLength: number }> {
    const file = await open(this.pathOf(key), 'r').catch((error: unknown) => Promise.reject(this.translate(key, error)));
    try {
      return { file, dataStart: 0, dataLength: (await file.stat()).size };
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  /** A segment record's bytes, their segment open (the caller closes it), or NotFoundError. */
  private async openRecordBytes(key: string, located: SegmentKey): Promise<{ file: FileHandle; dataStart: number; dataLength: number }> {
    const { record, file } = await this.openRecord(key, located, 'r');
    return { file, dataStart: record.dataStart, dataLength: record.header.dataLength };
  }

  private translate(key: string, error: unknown): unknown {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new NotFoundError('BLOB_NOT_FOUND', `no blob at ${key}`);
    return error;
  }

  /** Folders left empty (an old email's own, a day's once its mail is gone) are removed so deleted mail leaves no trace on disk. */
  private async removeEmptyParents(dir: string): Promise<void> {
    let current = dir;
    while (current.startsWith(this.root + sep)) {
      try {
        await rmdir(current);
      } catch {
        return;
      }
      current = dirname(current);
    }
  }
}

/**
 * The header and key of the record at `offset`, read into `scratch` in one read where the key fits
 * (a second read where it does not); undefined where no record starts there.
 */
async function readRecordHead(file: FileHandle, offset: number, scratch: Buffer): Promise<{ header: RecordHeader; key: string } | undefined> {
  const { bytesRead } = await file.read(scratch, 0, scratch.byteLength, offset);
  const header = readHeader(scratch.subarray(0, bytesRead));
  if (header === undefined) return undefined;
  const keyEnd = HEADER_BYTES + header.keyLength;
  if (keyEnd <= bytesRead) return { header, key: scratch.toString('utf8', HEADER_BYTES, keyEnd) };
  const key = Buffer.alloc(header.keyLength);
  await readFully(file, key, offset + HEADER_BYTES);
  return { header, key: key.toString('utf8') };
}

async function readFully(file: FileHandle, into: Buffer, position: number): Promise<void> {
  for (let done = 0; done < into.byteLength; ) {
    const { bytesRead } = await file.read(into, done, into.byteLength - done, position + done);
    if (bytesRead === 0) throw new Error(`segment ends before its record does (at ${position + done})`);
    done += bytesRead;
  }
}

async function wipe(file: FileHandle, position: number, length: number): Promise<void> {
  const zeros = Buffer.alloc(Math.min(length, WIPE_CHUNK));
  for (let done = 0; done < length; ) {
    const { bytesWritten } = await file.write(zeros, 0, Math.min(zeros.byteLength, length - done), position + done);
    done += bytesWritten;
  }
}
