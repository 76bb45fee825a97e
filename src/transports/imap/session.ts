import type { Readable } from 'node:stream';
import type { ImapIdentity, ImapMailboxService } from '../../services/imap-mailbox.service.js';
import type { Command } from './imap-parser.js';
import type { MailboxView } from './mailbox-view.js';

export type SessionState = 'not-authenticated' | 'authenticated' | 'selected' | 'logout';

/** The tagged completion of a command. */
export interface Completion {
  status: 'OK' | 'NO' | 'BAD';
  text: string;
}

export const ok = (text: string): Completion => ({ status: 'OK', text });
export const no = (text: string): Completion => ({ status: 'NO', text });
export const bad = (text: string): Completion => ({ status: 'BAD', text });

/** What a command handler may use of its connection. */
export interface ImapSession {
  state: SessionState;
  identity: ImapIdentity | undefined;
  mailbox: MailboxView | undefined;
  readonly remoteAddress: string;
  readonly service: ImapMailboxService;
  capabilities(): string;
  /** Writes raw protocol bytes (latin1 for strings), waiting when the socket is congested. */
  write(data: string | Buffer): Promise<void>;
  pipe(stream: Readable): Promise<void>;
  /** Sends what was written since the last flush as one batch (FETCH corks the socket between flushes). */
  flush(): void;
  cork(): void;
  /** Reads one line from the client (AUTHENTICATE responses, IDLE's DONE); null when it went away. */
  readLine(): Promise<string | null>;
  /** Registers the login; false when the inbox already has its maximum of connections. */
  authenticate(identity: ImapIdentity): boolean;
  /** Re-reads the mailbox and writes the untagged updates (only where RFC 3501 allows EXPUNGE: NOOP, CHECK, IDLE, EXPUNGE). */
  syncMailbox(): Promise<void>;
  /** Resolves when the mailbox may have changed (IDLE waits on this and on the client). */
  mailboxChanged(): Promise<void>;
}

/** The logged-in identity; command states guarantee it exists where this is called. */
export function identityOf(session: ImapSession): ImapIdentity {
  if (session.identity === undefined) throw new Error('no user is logged in');
  return session.identity;
}

/** The selected mailbox; command states guarantee it exists where this is called. */
export function mailboxOf(session: ImapSession): MailboxView {
  if (session.mailbox === undefined) throw new Error('no mailbox is selected');
  return session.mailbox;
}

export type CommandHandler = (session: ImapSession, command: Command) => Promise<Completion>;

export interface CommandSpec {
  states: readonly SessionState[];
  handler: CommandHandler;
}
