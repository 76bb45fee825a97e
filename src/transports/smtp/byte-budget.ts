/**
 * Bytes of message data every SMTP session of this node holds together. A session reserves each
 * chunk as it arrives and releases the whole message when ingest is done with it; a chunk that
 * does not fit is refused (451 4.3.1), so memory stays bounded however many senders arrive at once.
 * A spooled message (on disk while it arrives) waits its turn with `acquire` before it is analysed.
 */
export class ByteBudget {
  private used = 0;
  private readonly waiting: Array<{ bytes: number; grant: () => void }> = [];

  constructor(private readonly capacity: number) {}

  reserve(bytes: number): boolean {
    if (this.used + bytes > this.capacity) return false;
    this.used += bytes;
    return true;
  }

  /** Waits, first come first served, until `bytes` fit; false when they never can or `timeoutMs` passes first. */
  acquire(bytes: number, timeoutMs: number): Promise<boolean> {
    if (bytes > this.capacity) return Promise.resolve(false);
    if (this.waiting.length === 0 && this.reserve(bytes)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = {
        bytes,
        grant: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        resolve(false);
      }, timeoutMs);
      this.waiting.push(waiter);
    });
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
    this.grantWaiting();
  }

  private grantWaiting(): void {
    for (let next = this.waiting[0]; next !== undefined && this.used + next.bytes <= this.capacity; next = this.waiting[0]) {
      this.waiting.shift();
      this.used += next.bytes;
      next.grant();
    }
  }
}
