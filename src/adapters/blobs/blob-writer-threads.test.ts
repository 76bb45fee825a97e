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
      writers.write(join(dir, 'a', 'shared'), join(dir, 'a', 'shared.tmp'), shared),
      writers.write(join(dir, 'b', 'plain'), join(dir, 'b', 'plain.tmp'), Buffer.from('a pooled buffer').subarray(2, 8)),
    ]);
    expect(await readFile(join(dir, 'a', 'shared'), 'utf8')).toBe('hello');
    expect(await readFile(join(dir, 'b', 'plain'), 'utf8')).toBe('pooled');
    expect((await stat(join(dir, 'a', 'shared'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'a'))).mode & 0o777).toBe(0o700);
    expect(await readdir(join(dir, 'a'))).toEqual(['shared']);
  });

  it('makes a missing folder, also one removed after an earlier write into it', async () => {
    const folder = join(dir, 'day');
    await writers.write(join(folder, 'first'), join(folder, 'first.tmp'), Buffer.from('1'));
    await writers.write(join(folder, 'second'), join(folder, 'second.tmp'), Buffer.from('2'));
    await rm(folder, { recursive: true });
    await writers.write(join(folder, 'third'), join(folder, 'third.tmp'), Buffer.from('3'));
    expect(await readdir(folder)).toEqual(['third']);
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
  });

  it('fails a write the file system refuses and leaves no temporary file', async () => {
    const target = join(dir, 'target');
    await writers.write(join(target, 'inside'), join(target, 'inside.tmp'), Buffer.from('x'));
    // Renaming a file over a non-empty directory fails after the temporary file was written.
    await expect(writers.write(target, join(dir, 'target.tmp'), Buffer.from('y'))).rejects.toMatchObject({ code: expect.stringMatching(/EISDIR|ENOTEMPTY|EEXIST/) });
    expect((await readdir(dir)).sort()).toEqual(['target']);
  });

  it('fails the writes in flight when a thread stops, and starts a new one for the next', async () => {
    const pending = writers.write(join(dir, 'big'), join(dir, 'big.tmp'), Buffer.alloc(64 * 1024 * 1024));
    await writers.close();
    await expect(pending).rejects.toThrow(/exited/);
    await writers.write(join(dir, 'after'), join(dir, 'after.tmp'), Buffer.from('z'));
    expect(await readFile(join(dir, 'after'), 'utf8')).toBe('z');
  });
});
