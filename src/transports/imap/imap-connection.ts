import type { Readable } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { Logger } from '../../logger.js';
import type { ImapIdentity, ImapMailboxService } from '../../services/imap-mailbox.service.js';
import { COMMANDS } from './commands/index.js';
import { completionForError } from './imap-replies.js';
import { ImapReader, LineTooLongError } from './imap-reader.js';
import { ImapSyntaxError, parseCommand, peekCommandName, type CommandPieces } from './imap-parser.js';
import type { MailboxView } from './mailbox-view.js';
import { bad, no, type Completion, type ImapSession, type SessionState } from './session.js';

export const CAPABILITIES = 'IMAP4rev1 AUTH=PLAIN SASL-IR ID IDLE LITERAL+ UIDPLUS UNSELECT NAMESPACE ENABLE';

const MAX_LINE_BYTES = 64 * 1024;
/** Literals carry LOGIN credentials and SEARCH strings here, never messages (APPEND is refused). */
const MAX_LITERAL_BYTES = 64 * 1024;
/** A corked batch is sent once it holds this much, whatever the batch size. */
const MAX_CORKED_BYTES = 256 * 1024;

/** Where connections register once logged in: per-inbox limits and change notifications. */
export interface ConnectionRegistry {
  register(connection: ImapConnection, identity: ImapIdentity): boolean;
  unregister(connection: ImapConnection): void;
}

type ReadResult = { pieces: CommandPieces } | { tag: string; refusal: Completion };

/** One client connection: reads commands (with literals), runs them in order, writes replies. */
export class ImapConnection implements ImapSession {
  state: SessionState = 'not-authenticated';
  identity: ImapIdentity | undefined;
  mailbox: MailboxView | undefined;
  readonly remoteAddress: string;
  private readonly reader: ImapReader;
  private changed = false;
  private wakeChanged: (() => void) | undefined;

  constructor(
    private readonly socket: TLSSocket,
    readonly service: ImapMailboxService,
    private readonly registry: ConnectionRegistry,
    private readonly logger: Logger,
  ) {
    this.remoteAddress = socket.remoteAddress ?? 'unknown';
    this.reader = new ImapReader(socket);
  }

  capabilities(): string {
    return CAPABILITIES;
  }

  async run(): Promise<void> {
    try {
      await this.write(`* OK [CAPABILITY ${CAPABILITIES}] Mailroom IMAP4rev1 ready\r\n`);
      while (this.state !== 'logout') {
        const read = await this.readCommand();
        if (read === null) break;
        if ('refusal' in read) await this.complete(read.tag, read.refusal);
        else await this.execute(read.pieces);
      }
    } catch (error) {
      if (error instanceof LineTooLongError) await this.write(`* BYE ${error.message}\r\n`).catch(() => undefined);
      else if (!this.socket.destroyed) this.logger.warn({ err: error }, 'IMAP connection failed');
    } finally {
      this.registry.unregister(this);
      this.close();
    }
  }

  /** Says goodbye (server shutdown, idle timeout) and closes. */
  bye(reason: string): void {
    this.close(`* BYE ${reason}\r\n`);
  }

  /** Ends the connection once the last bytes are out, without waiting for the client to close its side. */
  private close(last?: string): void {
    if (this.socket.destroyed) return;
    this.flush();
    const destroy = () => this.socket.destroy();
    if (last === undefined) this.socket.end(destroy);
    else this.socket.end(Buffer.from(last, 'latin1'), destroy);
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** The event bus reported a change to this inbox (or one of its emails). */
  notifyChanged(): void {
    this.changed = true;
    const wake = this.wakeChanged;
    this.wakeChanged = undefined;
    wake?.();
  }

  mailboxChanged(): Promise<void> {
    if (this.changed) {
      this.changed = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.wakeChanged = () => {
        this.changed = false;
        resolve();
      };
    });
  }

  authenticate(identity: ImapIdentity): boolean {
    if (!this.registry.register(this, identity)) return false;
    this.identity = identity;
    this.state = 'authenticated';
    return true;
  }

  async syncMailbox(): Promise<void> {
    const mailbox = this.mailbox;
    const identity = this.identity;
    if (mailbox === undefined || identity === undefined) return;
    const updates = mailbox.sync(await this.service.messages(identity));
    if (updates.length > 0) await this.write(`${updates.join('\r\n')}\r\n`);
  }

  async write(data: string | Buffer): Promise<void> {
    if (this.socket.destroyed) throw new Error('connection closed');
    const accepted = this.socket.write(typeof data === 'string' ? Buffer.from(data, 'latin1') : data);
    if (accepted && this.socket.writableLength < MAX_CORKED_BYTES) return;
    this.flush();
    if (accepted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
  }

  cork(): void {
    this.socket.cork();
  }

  flush(): void {
    while (this.socket.writableCorked > 0) this.socket.uncork();
  }

  async pipe(stream: Readable): Promise<void> {
    for await (const chunk of stream) await this.write(chunk as Buffer);
  }

  async readLine(): Promise<string | null> {
    const line = await this.reader.readLine(MAX_LINE_BYTES);
    return line === null ? null : line.toString('latin1');
  }

  /** One command with its literals; a literal for APPEND (or an oversized one) is refused before it is sent. */
  private async readCommand(): Promise<ReadResult | null> {
    const pieces: CommandPieces = [];
    for (;;) {
      const line = await this.readLine();
      if (line === null) return null;
      const literal = /\{(\d{1,12})(\+?)\}$/.exec(line);
      if (literal === null) {
        pieces.push(line);
        return { pieces };
      }
      pieces.push(line.slice(0, literal.index));
      const size = Number(literal[1]);
      const nonSynchronising = literal[2] === '+';
      const first = pieces[0] as string;
      const name = peekCommandName(first);
      if (name === 'APPEND' || size > MAX_LITERAL_BYTES) {
        const tag = first.split(' ')[0] ?? '*';
        if (nonSynchronising && !(await this.discardRest(size))) return null;
        return { tag, refusal: name === 'APPEND' ? no('[CANNOT] APPEND is not supported: this server has one read-only INBOX') : bad('[TOOBIG] Literal too large') };
      }
      if (!nonSynchronising) await this.write('+ Ready for literal data\r\n');
      const bytes = await this.reader.readBytes(size);
      if (bytes === null) return null;
      pieces.push(bytes);
    }
  }

  /** Skips a refused non-synchronising literal and the rest of its command (which may hold more). */
  private async discardRest(size: number): Promise<boolean> {
    let pending = size;
    for (;;) {
      if (!(await this.reader.skipBytes(pending))) return false;
      const line = await this.readLine();
      if (line === null) return false;
      const literal = /\{(\d{1,12})\+\}$/.exec(line);
      if (literal === null) return true;
      pending = Number(literal[1]);
    }
  }

  private async execute(pieces: CommandPieces): Promise<void> {
    let command;
    try {
      command = parseCommand(pieces);
    } catch (error) {
      if (!(error instanceof ImapSyntaxError)) throw error;
      await this.complete(error.tag ?? '*', bad(`Syntax error: ${error.message}`));
      return;
    }
    const spec = COMMANDS[command.name];
    if (spec === undefined) return this.complete(command.tag, bad(`Unknown command ${command.name}`));
    if (!spec.states.includes(this.state)) return this.complete(command.tag, bad(`${command.name} is not valid in this state`));
    let completion: Completion;
    try {
      completion = await spec.handler(this, command);
    } catch (error) {
      const mapped = completionForError(error);
      if (mapped.internal) this.logger.error({ err: error, command: command.name }, 'IMAP command failed');
      else this.logger.info({ command: command.name, remoteAddress: this.remoteAddress, reason: (error as Error).message }, 'IMAP command refused');
      completion = mapped.completion;
    }
    await this.complete(command.tag, completion);
  }

  private async complete(tag: string, completion: Completion): Promise<void> {
    await this.write(`${tag} ${completion.status} ${completion.text}\r\n`);
    this.flush();
  }
}
