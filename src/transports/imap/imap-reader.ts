import type { Duplex } from 'node:stream';

export class LineTooLongError extends Error {}

/** Buffered reads of CRLF lines and literal bytes from a socket, pausing it while a backlog waits. */
export class ImapReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private ended = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly socket: Duplex,
    private readonly highWaterMark = 1024 * 1024,
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      if (this.buffered > this.highWaterMark) socket.pause();
      this.notify();
    });
    const finish = () => {
      this.ended = true;
      this.notify();
    };
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', finish);
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private wait(): Promise<void> {
    this.socket.resume();
    return new Promise((resolve) => (this.wake = resolve));
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    if (this.buffered <= this.highWaterMark) this.socket.resume();
    return out;
  }

  /** The next line without its CRLF (or LF); null at end of stream. */
  async readLine(maxLength: number): Promise<Buffer | null> {
    let searched = 0;
    for (;;) {
      const all = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
      this.chunks = all.length > 0 ? [all] : [];
      const nl = all.indexOf(10, searched);
      if (nl >= 0) {
        const line = this.take(nl + 1);
        return line.subarray(0, line.length - (nl > 0 && line[nl - 1] === 13 ? 2 : 1));
      }
      if (all.length > maxLength) throw new LineTooLongError(`line longer than ${maxLength} bytes`);
      searched = all.length;
      if (this.ended) return null;
      await this.wait();
    }
  }

  /** Exactly n bytes; null if the stream ends first. */
  async readBytes(n: number): Promise<Buffer | null> {
    while (this.buffered < n) {
      if (this.ended) return null;
      await this.wait();
    }
    return Buffer.from(this.take(n));
  }

  /** Discards n bytes without keeping them (a refused literal). */
  async skipBytes(n: number): Promise<boolean> {
    let left = n;
    while (left > 0) {
      if (this.buffered === 0) {
        if (this.ended) return false;
        await this.wait();
        continue;
      }
      left -= this.take(Math.min(left, this.buffered)).length;
    }
    return true;
  }
}
