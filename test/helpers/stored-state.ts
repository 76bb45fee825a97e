import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
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
  blobFiles: number;
}

/** Row counts of every table an ingest writes, plus the files in the blob directory. */
export async function storedState(t: TestApp, blobDir = join(t.dataDir, 'blobs')): Promise<StoredState> {
  const db = t.app.ctx.db.kysely;
  const count = async (table: 'emails' | 'attachments' | 'inbox_messages' | 'activity_logs') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  return {
    emails: await count('emails'),
    attachments: await count('attachments'),
    inboxMessages: await count('inbox_messages'),
    logs: await count('activity_logs'),
    blobFiles: (await filesUnder(blobDir)).length,
  };
}
