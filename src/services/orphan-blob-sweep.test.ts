import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blobKeys } from '../adapters/blobs/blob-keys.js';
import { DiskBlobStore } from '../adapters/blobs/disk.blob-store.js';
import type { StorageConfigRepository } from '../adapters/db/repositories/storage-config.repository.js';
import { sweepOrphanBlobs } from './orphan-blob-sweep.js';

const at = '2026-11-26T03:04:05.678Z';

describe('sweepOrphanBlobs on a disk store holding both layouts', () => {
  let dir: string;
  let blobs: DiskBlobStore;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'orphan-sweep-'));
    blobs = new DiskBlobStore(dir);
  });

  afterEach(async () => {
    await blobs.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('deletes the blobs of emails without a row and keeps the others, in either layout', async () => {
    // Mail stored before segments has a file per blob, as a stream's put still makes.
    const putFile = (key: string) => blobs.put(key, Readable.from([Buffer.from(key)]), 'application/octet-stream');
    const putRecord = (key: string) => blobs.put(key, Buffer.from(key), 'application/octet-stream');
    const kept = [await putRecord(blobKeys.eml('t1', 'kept-new', at)), await putRecord(blobKeys.attachment('t1', 'kept-new', at, 'a1')), await putFile('emails/t1/kept-old/message.eml')];
    const orphans = [
      await putRecord(blobKeys.eml('t1', 'gone-new', at)),
      await putRecord(blobKeys.attachment('t1', 'gone-new', at, 'a1')),
      await putFile('emails/t1/gone-old/message.eml'),
      await putFile('emails/t1/gone-old/attachments/a1'),
    ];
    const storageConfigs = { existingEmailIds: async (ids: string[]) => new Set(ids.filter((id) => id.startsWith('kept'))) } as unknown as StorageConfigRepository;

    expect(await sweepOrphanBlobs({ blobs, storageConfigs, graceMs: 0 }, Date.now() + 1000)).toBe(orphans.length);

    for (const key of kept) expect(await blobs.exists(key), key).toBe(true);
    for (const key of orphans) expect(await blobs.exists(key), key).toBe(false);
    expect((await readdir(join(dir, 'emails', 't1'))).sort()).toEqual(['2026-11-26', 'kept-old']);
  });

  it('removes a segment file once no live record is left in it and no put appends to it', async () => {
    const store = new DiskBlobStore(dir, { segmentIdleCloseMs: 50 });
    try {
      const gone = await store.put(blobKeys.eml('t2', 'gone', at), Buffer.from('bytes'), 'message/rfc822');
      const storageConfigs = { existingEmailIds: async () => new Set<string>() } as unknown as StorageConfigRepository;
      // The sweep zeroes the orphan's record; its segment is still open for appends, so it stays.
      expect(await sweepOrphanBlobs({ blobs: store, storageConfigs, graceMs: 0 }, Date.now() + 1000)).toBe(1);
      expect(await store.exists(gone)).toBe(false);
      expect(await readdir(join(dir, 'emails', 't2', '2026-11-26'))).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      // Closed now: the next sweep lists the dead segment under its own path and removes it with its folders.
      expect(await sweepOrphanBlobs({ blobs: store, storageConfigs, graceMs: 0 }, Date.now() + 1000)).toBe(1);
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
