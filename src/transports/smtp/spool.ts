import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { SpooledMessage } from '../../core/message-bytes.js';

/** Spool files are named `<pid>-<uuid>.eml`: the pid tells a live node's files from a dead one's. */
const SPOOL_FILE = /^(\d+)-[0-9a-f-]{36}\.eml$/;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Creates the spool directory (0700) and removes what a stopped or crashed process left there:
 * those messages never got a 250, so their senders retry them. Files of another running node that
 * shares the data dir are left alone.
 */
export async function prepareSpoolDir(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const name of await readdir(dir)) {
    const pid = Number(SPOOL_FILE.exec(name)?.[1] ?? Number.NaN);
    if (Number.isNaN(pid) || pid === process.pid || !isRunning(pid)) await rm(join(dir, name), { force: true, recursive: true });
  }
  return dir;
}

/**
 * One message being written to the spool as it arrives. `write` follows the stream's backpressure
 * (false: wait for `onDrain` before the next chunk), so the file is the only full copy.
 */
export class SpoolFile {
  readonly path: string;
  private readonly out: WriteStream;
  private written = 0;

  constructor(dir: string, onError: (error: Error) => void) {
    this.path = join(dir, `${process.pid}-${randomUUID()}.eml`);
    this.out = createWriteStream(this.path, { flags: 'wx', mode: 0o600 });
    this.out.once('error', onError);
  }

  write(chunk: Buffer): boolean {
    this.written += chunk.length;
    return this.out.write(chunk);
  }

  onDrain(resume: () => void): void {
    this.out.once('drain', resume);
  }

  /** Every byte is in the file (not fsynced: the spool is not the durable copy, the blob store is). */
  async finish(): Promise<SpooledMessage> {
    this.out.end();
    await finished(this.out);
    return { path: this.path, byteLength: this.written };
  }

  /** Stops writing and removes the file; safe to call more than once and after `finish`. */
  async discard(): Promise<void> {
    if (!this.out.closed) {
      const closed = new Promise<void>((resolve) => this.out.once('close', () => resolve()));
      this.out.destroy();
      await closed;
    }
    await rm(this.path, { force: true });
  }
}
