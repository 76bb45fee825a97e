/**
 * Bytes of message data every SMTP session of this node holds together. A session reserves each
 * chunk as it arrives and releases the whole message when ingest is done with it; a chunk that
 * does not fit is refused (451 4.3.1), so memory stays bounded however many senders arrive at once.
 */
export class ByteBudget {
  private used = 0;

  constructor(private readonly capacity: number) {}

  reserve(bytes: number): boolean {
    if (this.used + bytes > this.capacity) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}
