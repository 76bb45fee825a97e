/**
 * A Blob that only concatenates bytes, for the analysis worker threads. postal-mime joins every body
 * part's lines through `new Blob(chunks).arrayBuffer()`, and Node 20's Blob (stream-based, async per
 * part) spends about three quarters of the parse time of a 10 KB text message there (docs/decisions.md).
 * A worker runs only parsing and authentication, so replacing its global Blob touches nothing else.
 *
 * Unlike Node's Blob it reads its parts when its bytes are asked for, not when it is made: postal-mime
 * makes a Blob and reads it at once, and never changes a part it has handed over (a line of the
 * message, a decoder's freshly decoded chunk). A message's lines and their '\n' separators are then
 * copied once, straight into the buffer returned (D32), instead of into the Blob and again out of it.
 */
type Part = string | ArrayBuffer | ArrayBufferView | BufferBlob;
type Held = string | Uint8Array;

export class BufferBlob {
  readonly type: string;
  readonly size: number;
  readonly #parts: Held[];

  constructor(parts: Iterable<Part> = [], options: { type?: string } = {}) {
    this.#parts = [];
    for (const part of parts) {
      if (part instanceof BufferBlob) this.#parts.push(...part.#parts);
      else this.#parts.push(held(part));
    }
    this.size = this.#parts.reduce((sum, part) => sum + byteLengthOf(part), 0);
    this.type = options.type ?? '';
  }

  /** A fresh buffer on every call, as Blob#arrayBuffer gives. */
  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.bytes().buffer as ArrayBuffer;
  }

  async text(): Promise<string> {
    return this.bytes().toString('utf8');
  }

  private bytes(): Buffer {
    // Not from Buffer's shared pool: the caller owns the whole ArrayBuffer.
    const bytes = Buffer.allocUnsafeSlow(this.size);
    let offset = 0;
    for (const part of this.#parts) {
      if (typeof part !== 'string') {
        bytes.set(part, offset);
        offset += part.byteLength;
      } else if (isOneAsciiChar(part)) bytes[offset++] = part.charCodeAt(0);
      else offset += bytes.write(part, offset, 'utf8');
    }
    return bytes;
  }
}

function held(part: Exclude<Part, BufferBlob>): Held {
  if (typeof part === 'string') return part;
  if (part instanceof ArrayBuffer) return new Uint8Array(part);
  if (ArrayBuffer.isView(part)) return part instanceof Uint8Array ? part : new Uint8Array(part.buffer, part.byteOffset, part.byteLength);
  throw new TypeError('unsupported Blob part');
}

/** postal-mime's separators: '\n' is most of the parts of a text body. */
const isOneAsciiChar = (text: string) => text.length === 1 && text.charCodeAt(0) < 0x80;

function byteLengthOf(part: Held): number {
  if (typeof part !== 'string') return part.byteLength;
  return isOneAsciiChar(part) ? 1 : Buffer.byteLength(part, 'utf8');
}

/** Makes `Blob` in this thread a BufferBlob. Call only in a thread that runs nothing but analysis. */
export function installBufferBlob(): void {
  globalThis.Blob = BufferBlob as unknown as typeof Blob;
}
