import { blobKeys } from '../adapters/blobs/blob-keys.js';
import type { StorageConfigRepository } from '../adapters/db/repositories/storage-config.repository.js';
import type { BlobStore } from '../ports/blob-store.js';

/** Emails whose rows are looked up in one query. */
const BATCH = 500;

export interface OrphanSweepDependencies {
  blobs: BlobStore;
  storageConfigs: StorageConfigRepository;
  /** Younger blobs are left alone: ingest writes the blob first and its row commits a moment later. */
  graceMs: number;
}

/** A disk write that died before its rename leaves a temporary file that no row can ever name. */
const isAbandonedTemporary = (key: string) => key.endsWith('.tmp');

/**
 * Deletes service-store blobs that have no email row and are older than the grace period: what a
 * crash between a blob write and its row commit, or between a row delete and its blob deletes, left
 * (docs/decisions.md D2). Returns how many blobs it deleted. Customers' buckets are not swept.
 */
export async function sweepOrphanBlobs(deps: OrphanSweepDependencies, now = Date.now()): Promise<number> {
  const cutoff = now - deps.graceMs;
  let deleted = 0;
  let batch = new Map<string, string[]>();
  const flush = async () => {
    const existing = await deps.storageConfigs.existingEmailIds([...batch.keys()]);
    const orphans = [...batch].filter(([emailId]) => !existing.has(emailId)).flatMap(([, keys]) => keys);
    for (const key of orphans) await deps.blobs.delete(key);
    deleted += orphans.length;
    batch = new Map();
  };
  for await (const blob of deps.blobs.list(blobKeys.root)) {
    if (blob.lastModified.getTime() > cutoff) continue;
    const emailId = blobKeys.emailIdOf(blob.key);
    if (emailId === undefined || isAbandonedTemporary(blob.key)) {
      await deps.blobs.delete(blob.key);
      deleted++;
      continue;
    }
    batch.set(emailId, [...(batch.get(emailId) ?? []), blob.key]);
    if (batch.size >= BATCH) await flush();
  }
  if (batch.size > 0) await flush();
  return deleted;
}
