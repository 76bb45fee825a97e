/**
 * A Blob that only concatenates bytes, for the analysis worker threads. postal-mime joins every body
 * part's lines through `new Blob(chunks).arrayBuffer()`, and Node 20's Blob (stream-based, async per
 * part) spends about three quarters of the parse time of a 10 KB text message there (docs/decisions.md).
 * A worker runs only parsing and authentication, so replacing its global Blob touches nothing else.
 */
type Part = string | ArrayBuffer | ArrayBufferView | BufferBlob;

export class BufferBlob {
  readonly type: string;
  readonly #bytes: Uint8Array;

  constructor(parts: Iterable<Part> = [], options: { type?: string } = {}) {
    const views = [...parts].map(toBytes);
    this.#bytes = new Uint8Array(views.reduce((sum, view) => sum + view.byteLength, 0));
    let offset = 0;
    for (const view of views) {
      this.#bytes.set(view, offset);
      offset += view.byteLength;
    }
    this.type = options.type ?? '';
  }

  get size(): number {
    return this.#bytes.byteLength;
  }

  /** A copy, as each call to Blob#arrayBuffer returns a fresh buffer. */
  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.#bytes.slice().buffer;
  }

  async text(): Promise<string> {
    return Buffer.from(this.#bytes.buffer, this.#bytes.byteOffset, this.#bytes.byteLength).toString('utf8');
  }

  bytes(): Uint8Array {
    return this.#bytes;
  }
}

function toBytes(part: Part): Uint8Array {
  if (typeof part === 'string') return Buffer.from(part, 'utf8');
  if (part instanceof ArrayBuffer) return new Uint8Array(part);
  if (ArrayBuffer.isView(part)) return new Uint8Array(part.buffer, part.byteOffset, part.byteLength);
  if (part instanceof BufferBlob) return part.bytes();
  throw new TypeError('unsupported Blob part');
}

/** Makes `Blob` in this thread a BufferBlob. Call only in a thread that runs nothing but analysis. */
export function installBufferBlob(): void {
  globalThis.Blob = BufferBlob as unknown as typeof Blob;
}
