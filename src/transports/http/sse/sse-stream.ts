import type { ServerResponse } from 'node:http';
import type { StreamMessage, StreamSink } from '../../../services/realtime-messages.js';

/** How long a closed stream may take to flush its last bytes before the socket is destroyed. */
const END_GRACE_MS = 5_000;

/**
 * One SSE response, written by hand (no plugin): `id:` and `data:` lines only, never `event:`, so
 * EventSource's onmessage sees every event (spec clients switch on the envelope's `type`).
 * Writes never wait: past `maxBufferBytes` of unsent data, send() reports the client as too slow.
 */
export class SseStream implements StreamSink {
  private closed = false;
  private gone = false;
  private readonly closeListeners: Array<() => void> = [];

  constructor(
    private readonly response: ServerResponse,
    private readonly maxBufferBytes: number,
  ) {
    response.socket?.setNoDelay(true);
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // Reverse proxies (nginx) would otherwise buffer the stream.
      'x-accel-buffering': 'no',
    });
    response.flushHeaders();
    response.once('close', () => this.finish());
    response.on('error', () => this.finish());
  }

  send(message: StreamMessage): boolean {
    if (this.closed) return true;
    if (this.response.writableLength > this.maxBufferBytes) return false;
    this.response.write(frame(message));
    return true;
  }

  close(final: StreamMessage): void {
    if (this.closed) return;
    this.closed = true;
    this.response.end(frame(final));
    const destroy = setTimeout(() => this.response.destroy(), END_GRACE_MS);
    destroy.unref();
    this.response.once('close', () => clearTimeout(destroy));
    this.notifyClosed();
  }

  onClose(listener: () => void): void {
    if (this.gone) listener();
    else this.closeListeners.push(listener);
  }

  private finish(): void {
    this.closed = true;
    this.notifyClosed();
  }

  private notifyClosed(): void {
    this.gone = true;
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}

/** Encoded once per message, however many streams it goes to (a broadcast fans out to every client). */
const frames = new WeakMap<StreamMessage, Buffer>();

/** JSON has no raw newlines, so one `data:` line holds the whole envelope. */
function frame(message: StreamMessage): Buffer {
  let encoded = frames.get(message);
  if (encoded === undefined) {
    encoded = Buffer.from(`id: ${message.id}\ndata: ${message.json}\n\n`);
    frames.set(message, encoded);
  }
  return encoded;
}
