import { closeSync, fdatasyncSync, mkdirSync, mkdtempSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const PROBE_FILES = 200;

/**
 * CPU microseconds this process takes to create, write, fdatasync and close a new 10 KB file, over
 * 200 files in a new folder under `folder` (a new one each call). On an ext4 without a journal (this host's) creating a
 * file scans the folder's block group for free inodes and skips each one deleted in the last 5 s,
 * or 5 minutes while its inode table block is dirty: the same code measured 35–50 µs per file in one
 * folder and 270 µs in another made seconds later. A server's blob writes pay the same, so the
 * figure, printed beside a row, tells a costly folder from a slow server (docs/decisions.md D71).
 * The files stay until the bench exits: removing them would make the server's next files skip them.
 */
export function newFileCostUs(folder: string): number {
  mkdirSync(folder, { recursive: true });
  const probe = mkdtempSync(join(folder, 'disk-probe-'));
  const bytes = Buffer.alloc(10_240, 97);
  const started = process.cpuUsage();
  for (let i = 0; i < PROBE_FILES; i++) {
    const fd = openSync(join(probe, `${i}.probe`), 'wx', 0o600);
    try {
      writeSync(fd, bytes);
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / PROBE_FILES;
}
