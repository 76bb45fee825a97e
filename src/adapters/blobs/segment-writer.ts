import { randomBytes } from 'node:crypto';
import { close, fdatasync, open, writev } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** A segment is closed at this size and a new one started (docs/decisions.md D72). */
const ROTATE_BYTES = 64 * 1024 * 1024;
/** A segment without a put for this long is closed; the orphan sweep's grace must be longer. */
export const SEGMENT_IDLE_CLOSE_MS = 30_000;
/** Open segments (one per tenant and day written to) beyond this close, the least recently used first. */
const MAX_OPEN_SEGMENTS = 64;

/** A gathered writev is sent at this many buffers (two per record), under IOV_MAX (1,024 on Linux). */
const MAX_GATHERED_BUFFERS = 512;

const openFile = promisify(open);

/** Where an appended record is: its segment file's name (in the folder asked for) and its offset. */
export interface AppendedRecord {
  segment: string;
  offset: number;
}

/** An append not yet written: waiting for its folder's segment file to be created. */
interface Request {
  head: Buffer;
  data: Buffer;
  resolve(record: AppendedRecord): void;
  reject(error: unknown): void;
}

/** An append whose bytes are being written or wait for the next fdatasync. */
type Append = Pick<Request, 'resolve' | 'reject'> & { offset: number };

interface Segment {
  folder: string;
  name: string;
  path: string;
  fd: number;
  /** Bytes handed out: the next record's offset. */
  size: number;
  /** Appends whose bytes are written, waiting for the next fdatasync. */
  written: Append[];
  /** Records given offsets this event-loop turn, written together by one writev once it ends. */
  gathered: { buffers: Buffer[]; appends: Append[] } | undefined;
  writesInFlight: number;
  syncing: boolean;
  /** Takes no more records; its file closes once what it holds is flushed. */
  retired: boolean;
  closed: boolean;
  /** A write or flush failed: nothing on this segment is answered as durable any more. */
  failure: unknown;
  lastUsed: number;
  whenClosed: Promise<void>;
  markClosed(): void;
}

/** A folder's segment file being created, and the appends that wait for it. */
interface Opening {
  requests: Request[];
  done: Promise<void>;
}

/**
 * The disk store's appends (docs/decisions.md D72, D75, D81): the records a segment is given in one
 * turn of the event loop go out as one positioned `writev` on libuv's pool once the turn ends, since
 * each hand-off to the pool costs the main thread more than the bytes it carries. Every append whose
 * bytes are written when a segment's flush starts is answered by that one fdatasync, the next
 * starting as soon as it returns, so a busy server pays one flush for many messages. fdatasync, not
 * fsync: the bytes and the size that reads them back, not the timestamps (D58). A segment is never
 * appended to after this writer closes it or after a failed write or flush: a torn record can only
 * be the end of a segment no one appends to, and no row points into it, since a row commits only
 * after its record's flush answered.
 */
export class SegmentWriter {
  private readonly rotateBytes: number;
  private readonly idleCloseMs: number;
  private readonly writerId = randomBytes(6).toString('hex');
  private made = 0;
  /** By folder, in least recently used order: the segment new records there go to. */
  private readonly open = new Map<string, Segment>();
  private readonly opening = new Map<string, Opening>();
  /** Every segment whose file is not closed yet, retired ones still flushing included. */
  private readonly unclosed = new Set<Segment>();
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(options: { rotateBytes?: number; idleCloseMs?: number } = {}) {
    this.rotateBytes = options.rotateBytes ?? ROTATE_BYTES;
    this.idleCloseMs = options.idleCloseMs ?? SEGMENT_IDLE_CLOSE_MS;
  }

  /** Appends `head` and `data` as one record to the folder's open segment, resolved once fdatasynced. */
  append(folder: string, head: Buffer, data: Buffer): Promise<AppendedRecord> {
    return new Promise<AppendedRecord>((resolve, reject) => this.route(folder, { head, data, resolve, reject }));
  }

  /** Removes the segment file at `path` unless it is still open for appends here; true if it was removed. */
  async removeSegment(path: string): Promise<boolean> {
    for (const segment of this.unclosed) if (segment.path === path) return false;
    await rm(path, { force: true });
    return true;
  }

  /** Waits until every append already made is flushed and the files open now are closed; a later append starts a new segment. */
  async close(): Promise<void> {
    await Promise.all([...this.opening.values()].map((opening) => opening.done));
    for (const segment of [...this.open.values()]) this.retire(segment);
    await Promise.all([...this.unclosed].map((segment) => segment.whenClosed));
  }

  /** Writes the request into its folder's segment, or queues it on the segment being created there. */
  private route(folder: string, request: Request): void {
    const segment = this.open.get(folder);
    if (segment !== undefined) return this.write(segment, request);
    const opening = this.opening.get(folder) ?? this.startSegment(folder);
    opening.requests.push(request);
  }

  private startSegment(folder: string): Opening {
    const opening: Opening = { requests: [], done: Promise.resolve() };
    this.opening.set(folder, opening);
    opening.done = this.createSegment(folder).then(
      (segment) => {
        this.opening.delete(folder);
        this.open.set(folder, segment);
        if (this.open.size > MAX_OPEN_SEGMENTS) this.retire(this.open.values().next().value as Segment);
        // In order, before anything else runs: a rotation part-way routes the rest to a new segment.
        for (const request of opening.requests) this.route(folder, request);
      },
      (error: unknown) => {
        this.opening.delete(folder);
        for (const request of opening.requests) request.reject(error);
      },
    );
    return opening;
  }

  private write(segment: Segment, request: Request): void {
    this.open.delete(segment.folder);
    this.open.set(segment.folder, segment);
    segment.lastUsed = Date.now();
    const offset = segment.size;
    segment.size += request.head.byteLength + request.data.byteLength;
    segment.writesInFlight += 1;
    if (segment.size >= this.rotateBytes) this.retire(segment);
    const append = { offset, resolve: request.resolve, reject: request.reject };
    if (segment.gathered === undefined) {
      segment.gathered = { buffers: [], appends: [] };
      setImmediate(() => this.writeGathered(segment));
    }
    segment.gathered.buffers.push(request.head, request.data);
    segment.gathered.appends.push(append);
    if (segment.gathered.buffers.length >= MAX_GATHERED_BUFFERS) this.writeGathered(segment);
  }

  /** The records gathered since the last writev, as one: their offsets follow one another. */
  private writeGathered(segment: Segment): void {
    const gathered = segment.gathered;
    if (gathered === undefined) return;
    segment.gathered = undefined;
    this.writeAll(segment.fd, gathered.buffers, (gathered.appends[0] as Append).offset, (error) => {
      segment.writesInFlight -= gathered.appends.length;
      this.written(segment, gathered.appends, error);
    });
  }

  /** A new segment file, private to the service user; its folder is made only when missing (D55). */
  private async createSegment(folder: string): Promise<Segment> {
    this.made += 1;
    const name = `${Date.now().toString(36)}-${this.writerId}-${this.made}.seg`;
    const path = join(folder, name);
    for (let attempt = 1; ; attempt++) {
      try {
        const fd = await openFile(path, 'wx', 0o600);
        let markClosed = () => {};
        const whenClosed = new Promise<void>((resolve) => (markClosed = resolve));
        const segment: Segment = { folder, name, path, fd, size: 0, written: [], gathered: undefined, writesInFlight: 0, syncing: false, retired: false, closed: false, failure: undefined, lastUsed: Date.now(), whenClosed, markClosed };
        this.unclosed.add(segment);
        this.idleTimer ??= setInterval(() => this.retireIdle(), Math.max(1000, this.idleCloseMs / 3)).unref();
        return segment;
      } catch (error) {
        // A delete may remove the folder, once empty, between our mkdir and open, hence the retry.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 3) throw error;
        await mkdir(folder, { recursive: true, mode: 0o700 });
      }
    }
  }

  /** One positioned write of every buffer, continued where a short write stopped. */
  private writeAll(fd: number, buffers: Buffer[], position: number, done: (error: NodeJS.ErrnoException | null) => void): void {
    const total = buffers.reduce((sum, buffer) => sum + buffer.byteLength, 0);
    writev(fd, buffers, position, (error, bytes) => {
      if (error !== null || bytes === total) return done(error);
      const rest = Buffer.concat(buffers).subarray(bytes);
      this.writeAll(fd, [rest], position + bytes, done);
    });
  }

  private written(segment: Segment, appends: Append[], error: NodeJS.ErrnoException | null): void {
    if (error !== null) {
      // What part of the records was written stays at the segment's end, past every offset handed out.
      segment.failure ??= error;
      this.retire(segment);
    }
    if (segment.failure === undefined) segment.written.push(...appends);
    else for (const append of appends) append.reject(error ?? segment.failure);
    this.flush(segment);
  }

  private flush(segment: Segment): void {
    if (segment.syncing || segment.written.length === 0) return this.closeIfDone(segment);
    const batch = segment.written;
    segment.written = [];
    segment.syncing = true;
    fdatasync(segment.fd, (error) => {
      segment.syncing = false;
      if (error !== null) {
        // After a failed flush the kernel may report the next one clean with the bytes lost: nothing
        // on this segment is answered as durable any more, and it takes no more records.
        segment.failure ??= error;
        for (const append of batch.concat(segment.written)) append.reject(error);
        segment.written = [];
        return this.retire(segment);
      }
      for (const append of batch) append.resolve({ segment: segment.name, offset: append.offset });
      this.flush(segment);
    });
  }

  private retire(segment: Segment): void {
    segment.retired = true;
    if (this.open.get(segment.folder) === segment) this.open.delete(segment.folder);
    this.closeIfDone(segment);
  }

  private retireIdle(): void {
    const idleSince = Date.now() - this.idleCloseMs;
    for (const segment of [...this.open.values()]) if (segment.lastUsed < idleSince) this.retire(segment);
  }

  private closeIfDone(segment: Segment): void {
    if (!segment.retired || segment.closed || segment.syncing || segment.writesInFlight > 0 || segment.written.length > 0) return;
    segment.closed = true;
    close(segment.fd, () => {
      this.unclosed.delete(segment);
      if (this.unclosed.size === 0) {
        clearInterval(this.idleTimer);
        this.idleTimer = undefined;
      }
      segment.markClosed();
    });
  }
}
