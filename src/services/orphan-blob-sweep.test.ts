import { mkdtemp, readdir, rm } from 'node:fs/promises';
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
    const kept = [blobKeys.eml('t1', 'kept-new', at), blobKeys.attachment('t1', 'kept-new', at, 'a1'), 'emails/t1/kept-old/message.eml'];
    const orphans = [blobKeys.eml('t1', 'gone-new', at), blobKeys.attachment('t1', 'gone-new', at, 'a1'), 'emails/t1/gone-old/message.eml', 'emails/t1/gone-old/attachments/a1'];
    for (const key of [...kept, ...orphans]) await blobs.put(key, Buffer.from(key), 'application/octet-stream');
    const storageConfigs = { existingEmailIds: async (ids: string[]) => new Set(ids.filter((id) => id.startsWith('kept'))) } as unknown as StorageConfigRepository;

    expect(await sweepOrphanBlobs({ blobs, storageConfigs, graceMs: 0 }, Date.now() + 1000)).toBe(orphans.length);

    for (const key of kept) expect(await blobs.exists(key), key).toBe(true);
    for (const key of orphans) expect(await blobs.exists(key), key).toBe(false);
    expect((await readdir(join(dir, 'emails', 't1'))).sort()).toEqual(['2026-11-26', 'kept-old']);
  });
});
