import { connect as netConnect } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';

/**
 * A bare IMAP client over TLS for what real clients hide: exact response bytes (differential tests
 * against Dovecot) and commands they never send (refusals, malformed input).
 */
export class RawImapClient {
  private buffer = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  private closed = false;
  private nextTag = 1;
  greeting = '';

  private constructor(private readonly socket: TLSSocket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  /** `localAddress`: connect from another loopback address (127.0.0.2, …), another client IP for the server. */
  static async connect(port: number, host = '127.0.0.1', localAddress?: string): Promise<RawImapClient> {
    const socket = connect({ socket: netConnect({ host, port, localAddress }), rejectUnauthorized: false });
    await new Promise<void>((resolve, reject) => {
      socket.once('secureConnect', resolve);
      socket.once('error', reject);
    });
    const client = new RawImapClient(socket);
    client.greeting = await client.readUntil((text) => text.includes('\r\n'));
    return client;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Waits until the unread text satisfies `done`, then consumes and returns it (latin1). */
  async readUntil(done: (text: string) => boolean, timeoutMs = 5000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = this.buffer.toString('latin1');
      if (done(text)) {
        this.buffer = Buffer.alloc(0);
        return text;
      }
      if (this.closed) throw new Error(`connection closed; unread: ${text}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out; unread: ${text}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Unread text that is already here (without waiting). */
  drain(): string {
    const text = this.buffer.toString('latin1');
    this.buffer = Buffer.alloc(0);
    return text;
  }

  write(data: string | Buffer): void {
    this.socket.write(typeof data === 'string' ? Buffer.from(data, 'latin1') : data);
  }

  /** Sends `TAG command` and returns everything up to and including the tagged reply. */
  async command(command: string, timeoutMs?: number): Promise<{ text: string; tagged: string; untagged: string }> {
    const tag = `T${this.nextTag++}`;
    this.write(`${tag} ${command}\r\n`);
    const text = await this.readUntil((t) => new RegExp(`(^|\\r\\n)${tag} (OK|NO|BAD)[^\\r\\n]*\\r\\n$`).test(t), timeoutMs);
    const index = text.lastIndexOf(`${tag} `);
    return { text, tagged: text.slice(index).trimEnd(), untagged: text.slice(0, index) };
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.socket.destroy();
  }

  /** LOGOUT (if still connected) and wait until the server has closed the connection. */
  async logout(): Promise<void> {
    if (this.closed) return;
    const closed = new Promise<void>((resolve) => this.socket.once('close', () => resolve()));
    this.write('Z LOGOUT\r\n');
    this.socket.end();
    await closed;
  }
}
