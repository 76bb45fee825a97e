import { Readable } from 'node:stream';
import { onlyAddress } from '../core/address.js';
import type { Caller } from '../core/api-key.js';
import { ForbiddenError, NotFoundError, UnauthenticatedError } from '../core/errors.js';
import { MimeScanner, scanMime, type MimeEntity } from '../core/mime-structure.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { MailboxMessageRow, SearchableRow } from '../adapters/db/repositories/imap-mailbox.repository.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { FailureCounter } from '../ports/failure-counter.js';
import type { AuthService } from './auth.service.js';
import type { EmailService } from './email.service.js';
import type { InboxService } from './inbox.service.js';
import { LoginGuard } from './login-guard.js';

/** A logged-in IMAP user: the inbox-scoped key as a Caller, and the one mailbox it opens. */
export interface ImapIdentity {
  caller: Caller;
  inboxId: string;
  address: string;
  /** Fixed per inbox: its creation time in seconds (inbox ids are never reused). */
  uidValidity: number;
  /** Deleting (EXPUNGE, CLOSE) needs the `api` scope besides `imap` (docs/decisions.md). */
  canExpunge: boolean;
}

export type ImapMessage = MailboxMessageRow;

export interface ImapLoginOptions {
  failureDelayMs: number;
  failuresPerAddress: number;
  failuresPerIp: number;
}

/** A message read for FETCH: the bytes when small, the structure when asked for. */
export interface LoadedMessage {
  raw: Buffer | undefined;
  structure: MimeEntity | undefined;
}

/** The window of the IMAP login throttle (the FailureCounter given to the service counts over it). */
export const IMAP_FAILURE_WINDOW_MS = 15 * 60_000;
/** Messages up to this size are read whole (one read beats a stream per section); larger ones are streamed. */
const INLINE_LIMIT = 1024 * 1024;
const STRUCTURE_CACHE_ENTRIES = 1000;
/** Emails per `id in (...)` query, well under SQLite's bound-parameter limit. */
const SEARCH_BATCH = 500;

const authFailed = () => new UnauthenticatedError('IMAP_AUTH_FAILED', 'Authentication failed');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The IMAP backend: login with an inbox-scoped key, the inbox's messages with their UIDs, and the
 * raw EML they are served from. Reads and changes go through EmailService, so \Seen is the REST
 * `read` flag (with its email.updated event) and EXPUNGE removes the inbox's copy as EmailService.delete
 * does for an inbox-scoped key (the email itself only with the last copy).
 */
export class ImapMailboxService {
  private readonly loginGuard: LoginGuard;
  /** Structures are immutable (stored mail never changes), so a small LRU keyed by blob is safe. */
  private readonly structures = new Map<string, MimeEntity>();

  constructor(
    private readonly repos: Repositories,
    private readonly auth: AuthService,
    private readonly inboxes: InboxService,
    private readonly emails: EmailService,
    private readonly blobs: BlobStore,
    private readonly options: ImapLoginOptions,
    failures: FailureCounter,
  ) {
    this.loginGuard = new LoginGuard(failures, 'imap', { perIdentityAndIp: options.failuresPerAddress, perIp: options.failuresPerIp });
  }

  /** Username: the inbox address or one of its aliases (any case); password: an active, unexpired key with the imap scope bound to it. */
  async login(username: string, password: string, remoteIp: string): Promise<ImapIdentity> {
    const address = username.trim().toLowerCase();
    if (await this.loginGuard.blocked(address, remoteIp)) {
      await sleep(this.options.failureDelayMs);
      throw new UnauthenticatedError('IMAP_AUTH_THROTTLED', 'Too many failed logins; try again later');
    }
    try {
      return await this.verify(address, password);
    } catch (error) {
      if (!(error instanceof UnauthenticatedError)) throw error;
      await this.loginGuard.fail(address, remoteIp);
      await sleep(this.options.failureDelayMs);
      throw error;
    }
  }

  private async verify(address: string, password: string): Promise<ImapIdentity> {
    if (!/^[^\s@*%]+@[^\s@*%]+$/.test(address)) throw authFailed();
    // A wrong key and a missing inbox look the same to the client; a database fault stays a fault.
    const caller = await this.auth.authenticate(password).catch((error: unknown) => {
      throw error instanceof UnauthenticatedError ? authFailed() : error;
    });
    if (caller.inboxId === null || !caller.scopes.includes('imap')) throw authFailed();
    const inbox = await this.inboxes.getRecordOrThrow(caller, caller.inboxId).catch((error: unknown) => {
      throw error instanceof NotFoundError ? authFailed() : error;
    });
    if (inbox.address.toLowerCase() !== address && !inbox.aliases.includes(address)) throw authFailed();
    return {
      caller,
      inboxId: inbox.id,
      address: inbox.address,
      uidValidity: Math.max(1, Math.floor(Date.parse(inbox.createdAt) / 1000)),
      canExpunge: caller.scopes.includes('api'),
    };
  }

  /** The inbox's messages in UID order (only those above afterUid). */
  messages(identity: ImapIdentity, afterUid = 0): Promise<ImapMessage[]> {
    return this.repos.imapMailbox.listMessages(identity.caller.tenantId, identity.inboxId, afterUid);
  }

  /** Reads what a FETCH needs: the bytes (small messages only), the structure, or both. */
  async load(message: ImapMessage, want: { bytes: boolean; structure: boolean }): Promise<LoadedMessage> {
    const withStructure = want.structure;
    const cached = this.structures.get(message.emlKey);
    if (!want.bytes && cached !== undefined) return { raw: undefined, structure: cached };
    if (message.size <= INLINE_LIMIT) {
      const raw = await this.blobs.getBuffer(message.emlKey);
      const structure = withStructure ? (cached ?? this.remember(message.emlKey, scanMime(raw))) : undefined;
      return { raw, structure };
    }
    if (!withStructure) return { raw: undefined, structure: undefined };
    if (cached !== undefined) return { raw: undefined, structure: cached };
    const scanner = new MimeScanner();
    for await (const chunk of await this.blobs.getStream(message.emlKey)) scanner.push(chunk as Buffer);
    return { raw: undefined, structure: this.remember(message.emlKey, scanner.end()) };
  }

  /** Bytes [start, end) of the raw message, streamed. */
  async openRange(message: ImapMessage, start: number, end: number): Promise<Readable> {
    return Readable.from(sliceBytes(await this.blobs.getStream(message.emlKey), start, end));
  }

  async setSeen(identity: ImapIdentity, message: ImapMessage, seen: boolean): Promise<void> {
    await this.emails.setRead(identity.caller, message.emailId, seen);
  }

  /** Removes the inbox's copies (EmailService.delete for an inbox-scoped key); those already gone count as deleted. */
  async expunge(identity: ImapIdentity, messages: ImapMessage[]): Promise<void> {
    if (!identity.canExpunge) {
      throw new ForbiddenError('IMAP_DELETE_FORBIDDEN', 'This key may not delete messages (it needs the api scope as well as imap)');
    }
    for (const message of messages) {
      await this.emails.delete(identity.caller, message.emailId).catch((error: unknown) => {
        if (!(error instanceof NotFoundError)) throw error;
      });
    }
  }

  async searchable(identity: ImapIdentity, messages: ImapMessage[]): Promise<Map<string, SearchableRow>> {
    const found = new Map<string, SearchableRow>();
    for (let i = 0; i < messages.length; i += SEARCH_BATCH) {
      const ids = messages.slice(i, i + SEARCH_BATCH).map((m) => m.emailId);
      for (const row of await this.repos.imapMailbox.searchable(identity.caller.tenantId, ids)) found.set(row.emailId, this.ownBlindCopyOnly(identity, row));
    }
    return found;
  }

  /** SEARCH BCC must not reveal which other inboxes got the message (as the REST `bcc` does not). */
  private ownBlindCopyOnly(identity: ImapIdentity, row: SearchableRow): SearchableRow {
    // Object.assign, not `{ ...row, bcc }`, which gives each copy a hidden class of its own on Node 20 (D66).
    return Object.assign({}, row, { bcc: onlyAddress(row.bcc, identity.address) });
  }

  private remember(key: string, structure: MimeEntity): MimeEntity {
    this.structures.delete(key);
    this.structures.set(key, structure);
    if (this.structures.size > STRUCTURE_CACHE_ENTRIES) this.structures.delete(this.structures.keys().next().value as string);
    return structure;
  }
}

async function* sliceBytes(source: Readable, start: number, end: number): AsyncGenerator<Buffer> {
  let position = 0;
  try {
    for await (const chunk of source) {
      const buffer = chunk as Buffer;
      const from = Math.max(0, start - position);
      const to = Math.min(buffer.length, end - position);
      position += buffer.length;
      if (to > from) yield buffer.subarray(from, to);
      if (position >= end) break;
    }
  } finally {
    source.destroy();
  }
}
