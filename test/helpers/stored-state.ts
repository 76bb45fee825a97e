import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DiskBlobStore } from '../../src/adapters/blobs/disk.blob-store.js';
import { isSegmentFile } from '../../src/adapters/blobs/segment-key.js';
import type { TestApp } from './test-app.js';

/** Every file under `dir` (recursively), relative paths; a missing directory has none. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

export interface StoredState {
  emails: number;
  attachments: number;
  inboxMessages: number;
  logs: number;
  blobs: number;
}

/** The blobs a disk store under `dir` holds: files, and live records in segment files (not a segment with none left). */
export async function liveBlobs(dir: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const blob of new DiskBlobStore(dir).list('')) if (!isSegmentFile(blob.key.slice(blob.key.lastIndexOf('/') + 1))) keys.push(blob.key);
  return keys;
}

/** Row counts of every table an ingest writes, plus the blobs in the blob directory. */
export async function storedState(t: TestApp, blobDir = join(t.dataDir, 'blobs')): Promise<StoredState> {
  const db = t.app.ctx.db.kysely;
  const count = async (table: 'emails' | 'attachments' | 'inbox_messages' | 'activity_logs') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  return {
    emails: await count('emails'),
    attachments: await count('attachments'),
    inboxMessages: await count('inbox_messages'),
    logs: await count('activity_logs'),
    blobs: (await liveBlobs(blobDir)).length,
  };
}
