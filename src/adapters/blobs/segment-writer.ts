import { Worker } from 'node:worker_threads';
import { SMALL_THREAD_LIMITS } from '../os/small-thread-limits.js';

/** A segment is closed at this size and a new one started (docs/decisions.md D72). */
const ROTATE_BYTES = 64 * 1024 * 1024;
/** A segment without a put for this long is closed; the orphan sweep's grace must be longer. */
export const SEGMENT_IDLE_CLOSE_MS = 30_000;
/** Open segments (one per tenant and day written to) beyond this close, the least recently used first. */
const MAX_OPEN_SEGMENTS = 64;

// Plain CommonJS so the same code runs from dist and from src under tsx (a worker's loader hooks do
// not apply to its own entry module on Node 20). One thread owns every open segment: it appends each
// record with one write and answers all the appends waiting on a segment with one fdatasync, started
// as soon as the previous one returns, so a busy server pays one flush for many messages where a file
// per blob paid a new inode each (docs/decisions.md D71, D72). fdatasync, not fsync: the bytes and the
// size that reads them back, not the timestamps (D58). A segment is never appended to after this
// thread stops: a torn record can only be the end of a closed segment, which no row points into.
const WRITER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { join } = require('node:path');
const { randomBytes } = require('node:crypto');
const { rotateBytes, idleCloseMs, maxOpen } = workerData;
const writer = randomBytes(6).toString('hex');
let made = 0;
/** By folder, in least recently used order: the segment new records there go to. */
const open = new Map();
/** Every segment whose file is still open, retired ones still flushing included. */
const unclosed = new Set();
/** Ids of close requests, answered once no segment file is open. */
let closing = [];

/** A new segment file, private to the service user; its folder is made only when missing (D55). */
function createSegment(folder) {
  const name = Date.now().toString(36) + '-' + writer + '-' + (++made) + '.seg';
  const path = join(folder, name);
  for (let attempt = 1; ; attempt++) {
    try {
      const fd = fs.openSync(path, 'wx', 0o600);
      const segment = { folder, name, path, fd, size: 0, waiting: [], syncing: false, retired: false, closed: false, lastUsed: Date.now() };
      unclosed.add(segment);
      return segment;
    } catch (error) {
      // A delete may remove the folder, once empty, between our mkdir and open, hence the retry.
      if (error.code !== 'ENOENT' || attempt === 3) throw error;
      fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    }
  }
}
function segmentFor(folder) {
  let segment = open.get(folder);
  if (segment !== undefined) {
    open.delete(folder);
  } else {
    segment = createSegment(folder);
    if (open.size >= maxOpen) retire(open.values().next().value);
  }
  open.set(folder, segment);
  segment.lastUsed = Date.now();
  return segment;
}
function writeAll(fd, buffers, position) {
  const total = buffers.reduce((sum, b) => sum + b.byteLength, 0);
  let written = fs.writevSync(fd, buffers, position);
  if (written === total) return;
  const rest = Buffer.concat(buffers);
  while (written < total) written += fs.writeSync(fd, rest, written, total - written, position + written);
}
/** No new records: closed once the appends already made are flushed. */
function retire(segment) {
  segment.retired = true;
  if (open.get(segment.folder) === segment) open.delete(segment.folder);
  closeIfDone(segment);
}
function closeIfDone(segment) {
  if (!segment.retired || segment.closed || segment.syncing || segment.waiting.length > 0) return;
  segment.closed = true;
  unclosed.delete(segment);
  fs.closeSync(segment.fd);
  answerClosing();
}
function answerClosing() {
  if (unclosed.size > 0) return;
  for (const id of closing) parentPort.postMessage({ id });
  closing = [];
}
/** Takes no more records anywhere and answers once every append made is flushed and every file closed. */
function closeAll({ id }) {
  closing.push(id);
  for (const segment of [...open.values()]) retire(segment);
  answerClosing();
}
function failed(id, error) {
  return { id, error: { message: error.message, code: error.code } };
}
function flush(segment) {
  if (segment.syncing || segment.waiting.length === 0) return closeIfDone(segment);
  const batch = segment.waiting;
  segment.waiting = [];
  segment.syncing = true;
  fs.fdatasync(segment.fd, (error) => {
    segment.syncing = false;
    if (error) {
      // After a failed flush the kernel may report the next one clean with the bytes lost: nothing
      // waiting on this segment is answered as durable, and it takes no more records.
      const all = batch.concat(segment.waiting);
      segment.waiting = [];
      for (const { id } of all) parentPort.postMessage(failed(id, error));
      return retire(segment);
    }
    for (const { id, offset } of batch) parentPort.postMessage({ id, segment: segment.name, offset });
    flush(segment);
  });
}
function append({ id, folder, head, bytes }) {
  let segment;
  try {
    segment = segmentFor(folder);
  } catch (error) {
    return parentPort.postMessage(failed(id, error));
  }
  const offset = segment.size;
  try {
    writeAll(segment.fd, [head, bytes], offset);
  } catch (error) {
    // What part of the record was written stays at the segment's end, past every offset handed out.
    parentPort.postMessage(failed(id, error));
    return retire(segment);
  }
  segment.size += head.byteLength + bytes.byteLength;
  segment.waiting.push({ id, offset });
  if (segment.size >= rotateBytes) retire(segment);
  flush(segment);
}
/** Removes a segment file no live record is left in, unless this thread still has it open. */
function remove({ id, path }) {
  for (const segment of unclosed) {
    if (segment.path === path) return parentPort.postMessage({ id, removed: false });
  }
  try {
    fs.rmSync(path, { force: true });
  } catch (error) {
    return parentPort.postMessage(failed(id, error));
  }
  parentPort.postMessage({ id, removed: true });
}
setInterval(() => {
  const idleSince = Date.now() - idleCloseMs;
  for (const segment of [...open.values()]) if (segment.lastUsed < idleSince) retire(segment);
}, Math.max(1000, idleCloseMs / 3)).unref();
parentPort.on('message', (message) => {
  if (message.closeAll) closeAll(message);
  else if (message.path !== undefined) remove(message);
  else append(message);
});
`;

interface Reply {
  id: number;
  segment?: string;
  offset?: number;
  removed?: boolean;
  error?: { message: string; code?: string };
}

interface Pending {
  resolve(reply: Reply): void;
  reject(error: Error): void;
}

/** Where an appended record is: its segment file's name (in the folder asked for) and its offset. */
export interface AppendedRecord {
  segment: string;
  offset: number;
}

/**
 * The disk store's appends, on one thread, one message each way: as promise calls each step was a
 * round trip through libuv's pool and the busy main event loop (docs/decisions.md D37). The thread
 * starts with the first call, so a store that only reads costs nothing.
 */
export class SegmentWriter {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  constructor(private readonly options: { rotateBytes?: number; idleCloseMs?: number } = {}) {}

  /** Appends `head` and `bytes` as one record to the folder's open segment, resolved once fdatasynced. */
  async append(folder: string, head: Buffer, data: Buffer): Promise<AppendedRecord> {
    const { bytes, transfer } = toPostable(data);
    const reply = await this.send({ folder, head, bytes }, transfer);
    return { segment: reply.segment as string, offset: reply.offset as number };
  }

  /** Removes the segment file at `path` unless it is still open for appends here; true if it was removed. */
  async removeSegment(path: string): Promise<boolean> {
    return (await this.send({ path }, [])).removed === true;
  }

  /** Waits for the appends already made to be flushed and their files closed, then stops the thread. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return;
    await this.send({ closeAll: true }, []).catch(() => undefined);
    if (this.worker === worker) this.worker = undefined;
    await worker.terminate();
  }

  private send(message: object, transfer: ArrayBuffer[]): Promise<Reply> {
    const worker = this.started();
    this.nextId += 1;
    const id = this.nextId;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...message }, transfer);
    });
  }

  private started(): Worker {
    if (this.worker !== undefined) return this.worker;
    const workerData = {
      rotateBytes: this.options.rotateBytes ?? ROTATE_BYTES,
      idleCloseMs: this.options.idleCloseMs ?? SEGMENT_IDLE_CLOSE_MS,
      maxOpen: MAX_OPEN_SEGMENTS,
    };
    const worker = new Worker(WRITER_SOURCE, { eval: true, workerData, resourceLimits: SMALL_THREAD_LIMITS });
    worker.unref();
    worker.on('message', (reply: Reply) => this.settle(reply));
    // A crash fails the puts in flight (the sender gets a 451 and retries) instead of hanging them.
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const pending of this.pending.values()) pending.reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`blob writer thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private settle(reply: Reply): void {
    const pending = this.pending.get(reply.id);
    if (pending === undefined) return;
    this.pending.delete(reply.id);
    if (reply.error === undefined) pending.resolve(reply);
    else pending.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
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
