import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface SmtpReplyLine {
  code: number;
  /** The whole reply, continuation lines joined with \n, without CRLF. */
  text: string;
}

/**
 * An SMTP client over a plain socket for byte-exact tests (pipelining, raw 8-bit headers,
 * dropping the connection mid-DATA). Replies are read in order as they arrive.
 */
export class RawSmtpClient {
  private buffer = '';
  private readonly replies: SmtpReplyLine[] = [];
  private waiters: Array<(reply: SmtpReplyLine) => void> = [];
  private closedWaiters: Array<() => void> = [];
  closed = false;

  private constructor(private socket: Socket) {
    this.attach(socket);
  }

  /** `localAddress` (another 127.x address) makes the connection come from a different client IP. */
  static async connect(port: number, localAddress?: string): Promise<{ client: RawSmtpClient; greeting: SmtpReplyLine; greetingMs: number }> {
    const started = performance.now();
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    const client = new RawSmtpClient(socket);
    const greeting = await client.reply();
    return { client, greeting, greetingMs: performance.now() - started };
  }

  private attach(socket: Socket): void {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => this.receive(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      for (const waiter of this.closedWaiters) waiter();
    });
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    for (;;) {
      const match = /^((?:\d{3}-[^\r\n]*\r\n)*)(\d{3}) ([^\r\n]*)\r\n/.exec(this.buffer);
      if (match === null) return;
      this.buffer = this.buffer.slice(match[0].length);
      const lines = match[0].trimEnd().split('\r\n').map((line) => line.slice(4));
      const reply = { code: Number(match[2]), text: lines.join('\n') };
      const waiter = this.waiters.shift();
      if (waiter) waiter(reply);
      else this.replies.push(reply);
    }
  }

  /** The next reply from the server. */
  reply(): Promise<SmtpReplyLine> {
    const queued = this.replies.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Resolves when the server closes the connection. */
  whenClosed(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => this.closedWaiters.push(resolve));
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  async command(line: string): Promise<SmtpReplyLine> {
    this.write(`${line}\r\n`);
    return this.reply();
  }

  /** EHLO, MAIL FROM, one RCPT TO per recipient; throws on any reply other than 250. */
  async envelope(from: string, to: string[], mailParams = ''): Promise<void> {
    for (const line of ['EHLO client.test', `MAIL FROM:<${from}>${mailParams}`, ...to.map((r) => `RCPT TO:<${r}>`)]) {
      const reply = await this.command(line);
      if (reply.code !== 250) throw new Error(`${line} → ${reply.code} ${reply.text}`);
    }
  }

  /** DATA, then the message (dot-stuffed, CRLF line ends; empty sends a bare terminator), then the final reply. */
  async data(message: string | Buffer): Promise<SmtpReplyLine> {
    const go = await this.command('DATA');
    if (go.code !== 354) return go;
    const stuffed = dotStuff(message);
    this.write(stuffed);
    // The terminator is CRLF.CRLF; a message that already ends in CRLF supplies the first CRLF.
    this.write(stuffed.length === 0 || stuffed.toString('latin1').endsWith('\r\n') ? '.\r\n' : '\r\n.\r\n');
    return this.reply();
  }

  /** STARTTLS and continue on the encrypted socket. */
  async startTls(): Promise<SmtpReplyLine> {
    const reply = await this.command('STARTTLS');
    if (reply.code !== 220) return reply;
    this.socket.removeAllListeners('data');
    const secure = tlsConnect({ socket: this.socket, rejectUnauthorized: false, servername: 'localhost' });
    await new Promise<void>((resolve, reject) => secure.once('secureConnect', resolve).once('error', reject));
    this.socket = secure;
    this.attach(secure);
    return reply;
  }

  /** Cuts the connection without QUIT. */
  destroy(): void {
    this.socket.destroy();
  }

  async quit(): Promise<void> {
    if (this.closed) return;
    this.write('QUIT\r\n');
    await this.whenClosed();
  }
}

/** Normalises line ends to CRLF and doubles leading dots (RFC 5321 4.5.2). */
export function dotStuff(message: string | Buffer): Buffer {
  const text = Buffer.isBuffer(message) ? message.toString('latin1') : Buffer.from(message, 'utf8').toString('latin1');
  return Buffer.from(text.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..'), 'latin1');
}
