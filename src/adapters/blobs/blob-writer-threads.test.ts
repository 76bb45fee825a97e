import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobWriterThreads } from './blob-writer-threads.js';

describe('BlobWriterThreads', () => {
  let dir: string;
  let writers: BlobWriterThreads;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'blob-writers-'));
    writers = new BlobWriterThreads(2);
  });

  afterEach(async () => {
    await writers.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes shared and ordinary buffers into place, private to the service user', async () => {
    const shared = Buffer.from(new SharedArrayBuffer(5));
    shared.write('hello');
    await Promise.all([
      writers.write(join(dir, 'a', 'shared'), shared),
      writers.write(join(dir, 'b', 'plain'), Buffer.from('a pooled buffer').subarray(2, 8)),
    ]);
    expect(await readFile(join(dir, 'a', 'shared'), 'utf8')).toBe('hello');
    expect(await readFile(join(dir, 'b', 'plain'), 'utf8')).toBe('pooled');
    expect((await stat(join(dir, 'a', 'shared'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'a'))).mode & 0o777).toBe(0o700);
    expect(await readdir(join(dir, 'a'))).toEqual(['shared']);
  });

  it('makes a missing folder, also one removed after an earlier write into it', async () => {
    const folder = join(dir, 'day');
    await writers.write(join(folder, 'first'), Buffer.from('1'));
    await writers.write(join(folder, 'second'), Buffer.from('2'));
    await rm(folder, { recursive: true });
    await writers.write(join(folder, 'third'), Buffer.from('3'));
    expect(await readdir(folder)).toEqual(['third']);
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
  });

  it('replaces an existing file whole and leaves no temporary file', async () => {
    const target = join(dir, 'target');
    await writers.write(target, Buffer.from('first'));
    await writers.write(target, Buffer.from('second'));
    expect(await readFile(target, 'utf8')).toBe('second');
    expect((await stat(target)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['target']);
  });

  it('fails a replacement the file system refuses and leaves what was there', async () => {
    const target = join(dir, 'target');
    await writers.write(join(target, 'inside'), Buffer.from('x'));
    // Renaming a file over a non-empty directory fails after the temporary file was written.
    await expect(writers.write(target, Buffer.from('y'))).rejects.toMatchObject({ code: expect.stringMatching(/EISDIR|ENOTEMPTY|EEXIST/) });
    expect(await readdir(dir)).toEqual(['target']);
    expect(await readdir(target)).toEqual(['inside']);
  });

  it('fails a write the file system refuses and leaves no file', async () => {
    await writers.write(join(dir, 'file'), Buffer.from('x'));
    // A file where the folder should be: the open fails with ENOTDIR, not ENOENT, so no folder is made.
    await expect(writers.write(join(dir, 'file', 'inside'), Buffer.from('y'))).rejects.toMatchObject({ code: 'ENOTDIR' });
    expect(await readdir(dir)).toEqual(['file']);
  });

  it('fails the writes in flight when a thread stops, and starts a new one for the next', async () => {
    // What the stopped write left under its name has no row; ingest deletes the keys of a failed put.
    const pending = writers.write(join(dir, 'big'), Buffer.alloc(64 * 1024 * 1024));
    await writers.close();
    await expect(pending).rejects.toThrow(/exited/);
    await writers.write(join(dir, 'after'), Buffer.from('z'));
    expect(await readFile(join(dir, 'after'), 'utf8')).toBe('z');
  });
});
