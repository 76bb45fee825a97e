import type { Readable } from 'node:stream';
import type { SpooledMessage } from '../../core/message-bytes.js';
import type { ByteBudget } from './byte-budget.js';
import type { SmtpReply } from './smtp-replies.js';
import { SpoolFile } from './spool.js';

export interface DataLimits {
  maxBytes: number;
  /** 0: no rate check. */
  minDataBytesPerSecond: number;
  minDataRateWindowMs: number;
}

export interface SpoolSettings {
  dir: string;
  /** A message that grows past this many bytes goes on into a spool file instead of memory. */
  thresholdBytes: number;
  /** Bytes the spool file starts with (the trace header of an authenticated session). */
  head?: Buffer;
  /** A spool file that could not be written or removed (the message itself is refused with 451). */
  onError: (error: unknown) => void;
}

/** A message read whole (its bytes count against the budget until `release`), or the reply that refuses it. */
export type DataOutcome =
  | { raw: Buffer; release: () => void }
  /** A large message in a spool file, holding its size of the budget while it is analysed; `release` frees that and deletes the file. */
  | { spooled: SpooledMessage; release: () => Promise<void> }
  | { refused: SmtpReply }
  /** The sender is too slow: the session ends with this reply. */
  | { closeSession: SmtpReply };

const RATE_CHECK_MS = 1000;

export const messageTooLarge = (limit: number): SmtpReply => ({ code: 552, message: `5.3.4 Message exceeds the size limit of ${limit} bytes` });
const OVER_BUDGET: SmtpReply = { code: 451, message: '4.3.1 Insufficient system resources, try again later' };
const SPOOL_FAILED: SmtpReply = { code: 451, message: '4.3.0 Message could not be spooled, try again later' };
/** A spooled message waits this long for its share of the budget; SMTP clients wait 10 minutes for the reply (RFC 5321 4.5.3.2.6). */
const SPOOLED_WAIT_MS = 120_000;
const TOO_SLOW: SmtpReply = { code: 421, message: '4.4.2 Data transfer too slow, closing connection' };

/** ES2024 growable SharedArrayBuffer (Node 20 has it; the ES2023 lib types do not). */
interface GrowableSharedArrayBuffer extends SharedArrayBuffer {
  grow(byteLength: number): void;
}
const GrowableShared = SharedArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => GrowableSharedArrayBuffer;

/**
 * Up to this size a message's chunks are kept as they came and copied once, at the end, into a
 * SharedArrayBuffer of the exact size: a growable one costs ~15 µs more main-thread CPU per message
 * (reserving, growing and unmapping its address space; D31), and holding a small message twice for
 * one copy costs nothing. A larger message moves into a growable buffer, so it is never held twice.
 */
const CHUNKED_UP_TO_BYTES = 256 * 1024;

/**
 * The message as it arrives, ending in shared memory: the analysis worker reads the same memory
 * (structured clone shares it) instead of a copy.
 */
class SharedMessage {
  private chunks: Buffer[] = [];
  private growable: GrowableSharedArrayBuffer | undefined;
  private length = 0;

  constructor(private readonly maxBytes: number) {}

  append(chunk: Buffer): void {
    if (this.growable === undefined && this.length + chunk.length > CHUNKED_UP_TO_BYTES) this.moveIntoGrowable();
    if (this.growable === undefined) {
      this.chunks.push(chunk);
      this.length += chunk.length;
    } else this.copyIn(this.growable, chunk);
  }

  /** What has arrived so far (a message moving on into a spool file). */
  held(): readonly Buffer[] {
    return this.growable === undefined ? this.chunks : [Buffer.from(this.growable, 0, this.length)];
  }

  bytes(): Buffer {
    if (this.growable !== undefined) return Buffer.from(this.growable, 0, this.length);
    const bytes = Buffer.from(new SharedArrayBuffer(this.length));
    let offset = 0;
    for (const chunk of this.chunks) offset += chunk.copy(bytes, offset);
    this.chunks = [];
    return bytes;
  }

  private moveIntoGrowable(): void {
    const growable = new GrowableShared(0, { maxByteLength: this.maxBytes });
    const chunks = this.chunks;
    this.chunks = [];
    this.length = 0;
    for (const chunk of chunks) this.copyIn(growable, chunk);
    this.growable = growable;
  }

  private copyIn(growable: GrowableSharedArrayBuffer, chunk: Buffer): void {
    growable.grow(this.length + chunk.length);
    new Uint8Array(growable, this.length, chunk.length).set(chunk);
    this.length += chunk.length;
  }
}

/**
 * Reads the DATA stream under three limits: the size cap (the rest is drained, not kept), the
 * node's in-flight byte budget (past it the message is dropped as it arrives and refused with 451),
 * and a minimum average rate once `minDataRateWindowMs` has passed (a trickling sender gets 421).
 * Past `spool.thresholdBytes` the message goes on into a spool file, which holds no budget while it
 * arrives; at the end it waits for its size of the budget (analysis reads it into memory).
 */
export function readData(stream: Readable, limits: DataLimits, budget: ByteBudget, spoolSettings: SpoolSettings): Promise<DataOutcome> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let message: SharedMessage | undefined = new SharedMessage(limits.maxBytes);
    let spool: SpoolFile | undefined;
    let size = 0;
    let reserved = 0;
    let refusal: SmtpReply | undefined;
    let settled = false;
    const discard = (file: SpoolFile) => file.discard().catch(spoolSettings.onError);
    const dropHeld = (reply: SmtpReply) => {
      refusal ??= reply;
      message = undefined;
      budget.release(reserved);
      reserved = 0;
      if (spool !== undefined) void discard(spool);
      spool = undefined;
      if (stream.isPaused()) stream.resume();
    };
    const settle = (outcome: DataOutcome | Error) => {
      if (settled) return;
      settled = true;
      clearInterval(rateCheck);
      if (outcome instanceof Error) {
        dropHeld(OVER_BUDGET);
        reject(outcome);
      } else resolve(outcome);
    };
    const rateCheck = setInterval(() => {
      const elapsed = performance.now() - started;
      if (limits.minDataBytesPerSecond === 0 || elapsed < limits.minDataRateWindowMs) return;
      if ((size * 1000) / elapsed >= limits.minDataBytesPerSecond) return;
      dropHeld(TOO_SLOW);
      settle({ closeSession: TOO_SLOW });
    }, RATE_CHECK_MS);
    rateCheck.unref();
    const startSpool = (): SpoolFile => {
      const file = new SpoolFile(spoolSettings.dir, (error) => {
        spoolSettings.onError(error);
        dropHeld(SPOOL_FAILED);
      });
      if (spoolSettings.head !== undefined) file.write(spoolSettings.head);
      for (const chunk of message?.held() ?? []) file.write(chunk);
      message = undefined;
      budget.release(reserved);
      reserved = 0;
      return file;
    };
    const toSpool = (file: SpoolFile, chunk: Buffer) => {
      if (file.write(chunk)) return;
      stream.pause();
      file.onDrain(() => stream.resume());
    };
    const finishSpool = (file: SpoolFile) => {
      clearInterval(rateCheck);
      file.finish().then(
        async (spooled) => {
          if (!(await budget.acquire(spooled.byteLength, SPOOLED_WAIT_MS))) {
            await discard(file);
            return settle({ refused: OVER_BUDGET });
          }
          const release = () => {
            budget.release(spooled.byteLength);
            return discard(file);
          };
          settle({ spooled, release });
        },
        (error: unknown) => {
          spoolSettings.onError(error);
          void discard(file);
          settle({ refused: SPOOL_FAILED });
        },
      );
    };
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (refusal !== undefined) return;
      if (size > limits.maxBytes) return dropHeld(messageTooLarge(limits.maxBytes));
      if (spool === undefined && size > spoolSettings.thresholdBytes) spool = startSpool();
      if (spool !== undefined) return toSpool(spool, chunk);
      if (!budget.reserve(chunk.length)) return dropHeld(OVER_BUDGET);
      reserved += chunk.length;
      message?.append(chunk);
    });
    stream.once('error', (error: Error) => settle(error));
    stream.once('end', () => {
      if (refusal !== undefined) return settle({ refused: refusal });
      if (spool !== undefined) return finishSpool(spool);
      if (message === undefined) return settle({ refused: OVER_BUDGET });
      const held = reserved;
      settle({ raw: message.bytes(), release: () => budget.release(held) });
    });
  });
}
