import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const folders = new Set<string>();
process.once('exit', () => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/**
 * A scratch folder under the system's temporary folder, removed when the bench process exits, not
 * when its row ends. Removing a row's tens of thousands of files just before the next row started
 * charged that row for them: on an ext4 without a journal (this host's) the inode allocator skips
 * every inode freed in the last 5 s (5 minutes while its block is dirty), reading each one's dtime,
 * for each file it creates (D71). A long-running server meets no such burst; the bench rows
 * should not either (bench/README.md, docs/decisions.md D60, D71).
 */
export async function scratchFolder(prefix: string): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), prefix));
  folders.add(folder);
  return folder;
}
