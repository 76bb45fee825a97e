import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../../core/errors.js';
import type { BlobStore } from '../../ports/blob-store.js';

/** Blobs as files under one root. Writes go to a temporary name, are fsynced, then renamed into place. */
export class DiskBlobStore implements BlobStore {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  private pathOf(key: string): string {
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep)) throw new Error(`blob key escapes the store: ${key}`);
    return path;
  }

  async put(key: string, data: Buffer | Readable, _contentType: string): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${randomUUID()}.tmp`;
    const file = await open(temporary, 'w');
    try {
      if (Buffer.isBuffer(data)) {
        await file.writeFile(data);
      } else {
        for await (const chunk of data) await file.write(chunk as Buffer);
      }
      await file.sync();
    } catch (error) {
      await file.close();
      await rm(temporary, { force: true });
      throw error;
    }
    await file.close();
    await rename(temporary, path);
  }

  async getStream(key: string): Promise<Readable> {
    const path = this.pathOf(key);
    await this.assertExists(key, path);
    return createReadStream(path);
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

  /** Empty per-email folders are removed so deleted mail leaves no trace on disk. */
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
