import { createReadStream } from 'node:fs';
import { constants } from 'node:fs';
import { copyFile, mkdir, open, opendir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../../core/errors.js';
import type { BlobInfo, BlobStore, ByteRange } from '../../ports/blob-store.js';
import { BlobWriterThreads } from './blob-writer-threads.js';

/** Writer threads per store: the fsyncs already run side by side on libuv's pool (docs/decisions.md D37). */
const WRITER_THREADS = 1;

/**
 * Blobs as files under one root, fdatasynced (bytes and size) before a put resolves. A buffer (what
 * ingest puts) goes to a writer thread, which creates a new key's file under its final name
 * (docs/decisions.md D60); a stream, a file copy and a key written again go to a temporary name and
 * are renamed into place.
 */
export class DiskBlobStore implements BlobStore {
  private readonly root: string;
  private readonly writers = new BlobWriterThreads(WRITER_THREADS);

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** Stops the writer threads; a later write starts them again. */
  async close(): Promise<void> {
    await this.writers.close();
  }

  private pathOf(key: string): string {
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep)) throw new Error(`blob key escapes the store: ${key}`);
    return path;
  }

  async put(key: string, data: Buffer | Readable, _contentType: string): Promise<void> {
    const path = this.pathOf(key);
    if (Buffer.isBuffer(data)) return this.writers.write(path, data);
    const temporary = `${path}.${randomUUID()}.tmp`;
    // Mail is private to its tenant: readable by the service's user only, whatever the umask.
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const file = await open(temporary, 'w', 0o600);
    try {
      for await (const chunk of data) await file.write(chunk as Buffer);
      await file.datasync();
    } catch (error) {
      await file.close();
      await rm(temporary, { force: true });
      throw error;
    }
    await file.close();
    await rename(temporary, path);
  }

  /** A kernel-side copy (a reflink where the filesystem has them), fsynced, then renamed into place as `put` does. */
  async putFile(key: string, source: string, _contentType: string): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const temporary = `${path}.${randomUUID()}.tmp`;
    try {
      await copyFile(source, temporary, constants.COPYFILE_FICLONE);
      const file = await open(temporary, 'r+');
      try {
        await file.chmod(0o600);
        await file.datasync();
      } finally {
        await file.close();
      }
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    await rename(temporary, path);
  }

  async getStream(key: string, range?: ByteRange): Promise<Readable> {
    const path = this.pathOf(key);
    await this.assertExists(key, path);
    return createReadStream(path, range === undefined ? {} : { start: range.start, end: range.end });
  }

  async getBuffer(key: string): Promise<Buffer> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      throw this.translate(key, error);
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
    await this.removeEmptyParents(dirname(this.pathOf(key)));
  }

  async exists(key: string): Promise<boolean> {
    try {
      await stat(this.pathOf(key));
      return true;
    } catch {
      return false;
    }
  }

  async *list(prefix: string): AsyncIterable<BlobInfo> {
    // Only the folder the prefix names is walked, not the whole store.
    const folder = prefix.slice(0, prefix.lastIndexOf('/') + 1);
    for await (const path of this.filesUnder(folder === '' ? this.root : this.pathOf(folder))) {
      const key = relative(this.root, path).split(sep).join('/');
      if (!key.startsWith(prefix)) continue;
      const info = await stat(path).catch(() => undefined);
      if (info !== undefined) yield { key, size: info.size, lastModified: info.mtime };
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

  private async assertExists(key: string, path: string): Promise<void> {
    try {
      await stat(path);
    } catch (error) {
      throw this.translate(key, error);
    }
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
