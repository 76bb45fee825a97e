import { Worker } from 'node:worker_threads';
import { SMALL_THREAD_LIMITS } from '../os/small-thread-limits.js';

// Plain CommonJS so the same code runs from dist and from src under tsx (a worker's loader hooks do
// not apply to its own entry module on Node 20). Only the fsync goes to libuv's pool, so several
// writes fsync at once; the other steps are quick system calls made here directly: as promise calls
// each was a round trip to the pool and back, two thread wake-ups (docs/decisions.md D44). A large
// attachment's write holds this thread meanwhile, which only delays the puts queued behind it.
// fdatasync, not fsync: it flushes the bytes and the size that reads them back, not the timestamps,
// and on ext4 a new file's came back some 0.5–1.5 ms sooner (docs/decisions.md D58).
const WRITER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const { dirname } = require('node:path');
const { randomUUID } = require('node:crypto');
function writeAll(fd, bytes) {
  for (let offset = 0; offset < bytes.byteLength; ) offset += fs.writeSync(fd, bytes, offset);
}
/**
 * Creates the file, failing with EEXIST where one exists (O_EXCL), making its folder only when it is
 * missing: a folder is shared by a tenant's mail of a day, so a mkdir per write was a
 * wasted system call (docs/decisions.md D55). A delete may remove the folder once empty between our
 * mkdir and open, hence the retry.
 */
function createCreatingFolder(path) {
  for (let attempt = 1; ; attempt++) {
    try {
      // Mail is private to its tenant: readable by the service's user only, whatever the umask.
      return fs.openSync(path, 'wx', 0o600);
    } catch (error) {
      if (error.code !== 'ENOENT' || attempt === 3) throw error;
      fs.mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    }
  }
}
/** A new file (never an existing one) written and fdatasynced; done(error), the file removed if it failed. */
function writeNew(path, bytes, done) {
  let fd;
  let created = false;
  const fail = (error) => {
    try {
      if (fd !== undefined) fs.closeSync(fd);
    } finally {
      try {
        // Only a file this call created is removed, never one O_EXCL found there (EEXIST).
        if (created) fs.rmSync(path, { force: true });
      } finally {
        done(error);
      }
    }
  };
  try {
    fd = createCreatingFolder(path);
    created = true;
    writeAll(fd, bytes);
  } catch (error) {
    return fail(error);
  }
  fs.fdatasync(fd, (error) => {
    try {
      if (error) throw error;
      const written = fd;
      fd = undefined;
      fs.closeSync(written);
    } catch (failure) {
      return fail(failure);
    }
    done(null);
  });
}
/**
 * The bytes under the target's name, fdatasynced; callback(error). A new key (every key ingest
 * writes is a new email's) is created under its final name, no temporary name and rename: it is read
 * only through a row, committed after this put resolves, so it is unseen until complete; a failed
 * write is removed here and one a crash cut short has no row and goes to the orphan sweep
 * (docs/decisions.md D60). A key that exists is replaced whole: the bytes go to a temporary file,
 * renamed over it.
 */
function write(target, bytes, callback) {
  writeNew(target, bytes, (error) => {
    if (error === null || error.code !== 'EEXIST') return callback(error);
    const temporary = target + '.' + randomUUID() + '.tmp';
    writeNew(temporary, bytes, (failure) => {
      if (failure !== null) return callback(failure);
      try {
        fs.renameSync(temporary, target);
      } catch (renameFailure) {
        try {
          fs.rmSync(temporary, { force: true });
        } finally {
          callback(renameFailure);
        }
        return;
      }
      callback(null);
    });
  });
}
parentPort.on('message', ({ id, target, bytes }) => {
  write(target, bytes, (error) => {
    parentPort.postMessage(error ? { id, error: { message: error.message, code: error.code } } : { id });
  });
});
`;

interface Reply {
  id: number;
  error?: { message: string; code?: string };
}

interface Pending {
  resolve(): void;
  reject(error: Error): void;
}

/** One writer thread and the puts it has not answered yet. */
class WriterThread {
  readonly pending = new Map<number, Pending>();
  private readonly worker: Worker;

  constructor(onGone: (thread: WriterThread) => void) {
    this.worker = new Worker(WRITER_SOURCE, { eval: true, resourceLimits: SMALL_THREAD_LIMITS });
    this.worker.unref();
    this.worker.on('message', (reply: Reply) => this.settle(reply));
    // A crash fails the puts in flight (the sender gets a 451 and retries) instead of hanging them.
    const fail = (error: Error) => {
      onGone(this);
      for (const pending of this.pending.values()) pending.reject(error);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`blob writer thread exited (code ${code})`)));
  }

  write(id: number, target: string, bytes: Uint8Array, transfer: ArrayBuffer[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, target, bytes }, transfer);
    });
  }

  async terminate(): Promise<void> {
    await this.worker.terminate();
  }

  private settle(reply: Reply): void {
    const pending = this.pending.get(reply.id);
    if (pending === undefined) return;
    this.pending.delete(reply.id);
    if (reply.error === undefined) {
      pending.resolve();
    } else {
      pending.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
    }
  }
}

/**
 * Writes a buffer to its file and fdatasyncs it on a writer thread, in one message each way. The
 * same steps as promise calls were six thread-pool hops, each waiting for a turn of the busy main
 * event loop, and some 17% of its CPU (docs/decisions.md D37). Threads start with
 * the first write, so a store that only reads costs nothing.
 */
export class BlobWriterThreads {
  private readonly threads: WriterThread[] = [];
  private nextId = 0;

  constructor(private readonly size: number) {}

  write(target: string, data: Buffer): Promise<void> {
    const { bytes, transfer } = toPostable(data);
    this.nextId += 1;
    return this.leastBusy().write(this.nextId, target, bytes, transfer);
  }

  async close(): Promise<void> {
    const threads = this.threads.splice(0);
    await Promise.all(threads.map((thread) => thread.terminate()));
  }

  /** An idle thread, else a new one while there are fewer than `size`, else the one with the fewest writes waiting. */
  private leastBusy(): WriterThread {
    const idle = this.threads.find((thread) => thread.pending.size === 0);
    if (idle !== undefined) return idle;
    if (this.threads.length < this.size) {
      const thread = new WriterThread((gone) => this.forget(gone));
      this.threads.push(thread);
      return thread;
    }
    return this.threads.reduce((best, thread) => (thread.pending.size < best.pending.size ? thread : best));
  }

  private forget(gone: WriterThread): void {
    const index = this.threads.indexOf(gone);
    if (index >= 0) this.threads.splice(index, 1);
  }
}

/**
 * Bytes in a SharedArrayBuffer (the SMTP reader's messages) go as they are: the thread sees the same
 * memory. Any other buffer is copied to one of its exact size and transferred, since cloning a view
 * would copy its whole backing store (often a larger pool or a parsed message).
 */
function toPostable(data: Buffer): { bytes: Uint8Array; transfer: ArrayBuffer[] } {
  if (data.buffer instanceof SharedArrayBuffer) return { bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), transfer: [] };
  const copy = new Uint8Array(data.byteLength);
  copy.set(data);
  return { bytes: copy, transfer: [copy.buffer] };
}
