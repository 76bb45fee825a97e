import type { ImapMessage } from '../../services/imap-mailbox.service.js';
import { inSequenceSet, type SequenceSet } from './sequence-set.js';
import { list } from './imap-format.js';

export const MAILBOX_FLAGS = '(\\Seen \\Deleted)';

/**
 * One session's view of INBOX: messages in UID order (sequence number = index + 1), the
 * session-only \Deleted flags, and the diff that turns a fresh listing into EXPUNGE/EXISTS/FETCH updates.
 */
export class MailboxView {
  private readonly deleted = new Set<number>();

  constructor(
    public messages: ImapMessage[],
    readonly readOnly: boolean,
    readonly uidValidity: number,
  ) {}

  get exists(): number {
    return this.messages.length;
  }

  get lastUid(): number {
    return this.messages[this.messages.length - 1]?.uid ?? 0;
  }

  /** UIDs are a global sequence, so lastUid + 1 is a lower bound of the next one (all RFC 3501 asks). */
  get uidNext(): number {
    return this.lastUid + 1;
  }

  /** 1-based sequence number of the first unseen message, if any. */
  get firstUnseen(): number | undefined {
    const index = this.messages.findIndex((m) => !m.read);
    return index < 0 ? undefined : index + 1;
  }

  get unseenCount(): number {
    return this.messages.filter((m) => !m.read).length;
  }

  /** Messages addressed by sequence numbers or UIDs, in mailbox order. */
  select(set: SequenceSet, byUid: boolean): Array<{ seq: number; message: ImapMessage }> {
    const largest = byUid ? this.lastUid : this.exists;
    const out: Array<{ seq: number; message: ImapMessage }> = [];
    this.messages.forEach((message, index) => {
      if (inSequenceSet(set, byUid ? message.uid : index + 1, largest)) out.push({ seq: index + 1, message });
    });
    return out;
  }

  isDeleted(message: ImapMessage): boolean {
    return this.deleted.has(message.uid);
  }

  setDeleted(message: ImapMessage, deleted: boolean): void {
    if (deleted) this.deleted.add(message.uid);
    else this.deleted.delete(message.uid);
  }

  deletedMessages(): ImapMessage[] {
    return this.messages.filter((m) => this.deleted.has(m.uid));
  }

  flags(message: ImapMessage): string {
    const flags: string[] = [];
    if (message.read) flags.push('\\Seen');
    if (this.deleted.has(message.uid)) flags.push('\\Deleted');
    return list(flags);
  }

  /**
   * Applies a fresh listing and returns the untagged updates (RFC 3501 §7.4.1): EXPUNGE in
   * descending order so each number is right when sent, FLAGS changes, then EXISTS if it grew.
   */
  sync(fresh: ImapMessage[]): string[] {
    const updates: string[] = [];
    const freshByUid = new Map(fresh.map((m) => [m.uid, m]));
    for (let i = this.messages.length - 1; i >= 0; i--) {
      const message = this.messages[i] as ImapMessage;
      if (freshByUid.has(message.uid)) continue;
      this.messages.splice(i, 1);
      this.deleted.delete(message.uid);
      updates.push(`* ${i + 1} EXPUNGE`);
    }
    this.messages.forEach((message, index) => {
      const now = freshByUid.get(message.uid);
      if (now === undefined || now.read === message.read) return;
      this.messages[index] = now;
      updates.push(`* ${index + 1} FETCH (UID ${now.uid} FLAGS ${this.flags(now)})`);
    });
    const lastUid = this.lastUid;
    const added = fresh.filter((m) => m.uid > lastUid);
    if (added.length > 0) {
      this.messages.push(...added);
      updates.push(`* ${this.exists} EXISTS`);
    }
    return updates;
  }

  /** Replaces a message after its flags changed (STORE, FETCH BODY[]). */
  replace(message: ImapMessage, updated: ImapMessage): ImapMessage {
    const index = this.messages.indexOf(message);
    if (index >= 0) this.messages[index] = updated;
    return updated;
  }
}
