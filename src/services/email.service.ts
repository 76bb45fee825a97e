import type { Readable } from 'node:stream';
import { canSeeEnvironment, type Caller } from '../core/api-key.js';
import type { Email, EmailContent } from '../core/email.js';
import { decodeEmailCursor, encodeEmailCursor } from '../core/email-cursor.js';
import { onlyAddress } from '../core/address.js';
import { ForbiddenError, NotFoundError } from '../core/errors.js';
import { makePage, type PageRequest } from '../core/pagination.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { EmailFilter, EmailListPage, EmailSort, StoredAttachment } from '../adapters/db/repositories/email.repository.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { EventBus } from '../ports/event-bus.js';

export interface ReadState {
  id: string;
  read: boolean;
  updatedAt: string;
}

/** A page of emails plus the cursor of the next one (null on the last page). */
export type EmailPage = EmailListPage & { nextCursor: string | null };

/** The filter narrowed to what the caller may see: its environment (an environment key), its inbox (an inbox key). */
export function scopedFilter(caller: Caller, filter: EmailFilter): EmailFilter {
  const scoped = { ...filter };
  if (caller.environmentId !== null) scoped.environmentId = caller.environmentId;
  if (caller.inboxId !== null) scoped.inboxId = caller.inboxId;
  return scoped;
}

const emailNotFound = (id: string) => new NotFoundError('EMAIL_NOT_FOUND', `Email ${id} not found`);

/**
 * `bcc` lists the envelope recipients no header names, other inboxes' addresses among them: an
 * inbox-scoped caller sees only its own inbox's there (To and Cc are the message's own headers).
 */
function withoutOtherInboxes(emails: Email[], ownAddress: string | undefined): Email[] {
  if (ownAddress === undefined) return emails;
  // Object.assign, not `{ ...email, bcc }`, which gives each copy a hidden class of its own on Node 20 (D66).
  return emails.map((email) => Object.assign({}, email, { bcc: onlyAddress(email.bcc, ownAddress) }));
}

/**
 * Reading and managing stored emails. Every read is scoped to the caller: another tenant's email,
 * another environment's (for an environment-scoped key) or another inbox's (for an inbox-scoped key)
 * is simply not found.
 */
export class EmailService {
  constructor(
    private readonly repos: Repositories,
    private readonly blobs: BlobStore,
    private readonly events: EventBus,
    private readonly onBackgroundError: (error: unknown) => void,
  ) {}

  /** By page number, or after `cursor` (the nextCursor of a previous page, issued for the same sort). */
  async list(caller: Caller, filter: EmailFilter, sort: EmailSort, request: PageRequest, cursor?: string): Promise<EmailPage> {
    const after = cursor === undefined ? undefined : decodeEmailCursor(cursor, sort);
    if (filter.inboxId !== undefined) await this.assertInboxVisible(caller, filter.inboxId);
    if (!canSeeEnvironment(caller, filter.environmentId)) return { ...makePage([], 0, request), totalItemsIsLowerBound: false, nextCursor: null };
    const ownAddress = await this.ownAddressOf(caller);
    const page = await this.repos.emails.list(caller.tenantId, { ...scopedFilter(caller, filter), ownAddress }, sort, request, after);
    const last = page.data.at(-1);
    return { ...page, data: withoutOtherInboxes(page.data, ownAddress), nextCursor: page.hasNextPage && last !== undefined ? encodeEmailCursor(last, sort) : null };
  }

  async getOrThrow(caller: Caller, id: string): Promise<Email> {
    const email = await this.repos.emails.get(caller.tenantId, id);
    if (email === undefined || !this.visible(caller, email)) throw emailNotFound(id);
    if (caller.inboxId !== null) await this.assertInInbox(caller.inboxId, id);
    const [narrowed] = withoutOtherInboxes([email], await this.ownAddressOf(caller));
    return narrowed ?? email;
  }

  async contentOrThrow(caller: Caller, id: string): Promise<EmailContent> {
    await this.getOrThrow(caller, id);
    const content = await this.repos.emails.getContent(caller.tenantId, id);
    if (content === undefined) throw emailNotFound(id);
    return content;
  }

  async setRead(caller: Caller, id: string, read: boolean): Promise<ReadState> {
    const email = await this.getOrThrow(caller, id);
    const updatedAt = new Date().toISOString();
    await this.repos.emails.setRead(caller.tenantId, id, read, updatedAt);
    if (email.read !== read) {
      await this.events.publish({
        type: 'email.updated',
        tenantId: caller.tenantId,
        environmentId: email.environmentId,
        timestamp: updatedAt,
        data: { id, changes: { read } },
      });
    }
    return { id, read, updatedAt };
  }

  /**
   * An inbox-scoped caller removes only its inbox's copy; the email itself (row, EML, attachments)
   * goes with the last copy, so mail that also reached another inbox stays there.
   */
  async delete(caller: Caller, id: string): Promise<void> {
    const email = await this.getOrThrow(caller, id);
    if (caller.inboxId !== null) {
      if (!(await this.repos.inboxes.removeMessageOf(caller.inboxId, id))) throw emailNotFound(id);
      await this.remove(caller.tenantId, email, true);
      return;
    }
    if (!(await this.remove(caller.tenantId, email))) throw emailNotFound(id);
  }

  /**
   * Row first, blobs after: a crash in between leaves an orphan blob (swept), never a row without its
   * file. Returns false when the email was already gone. The retention sweeper deletes through this too.
   */
  async remove(tenantId: string, email: { id: string; environmentId: string }, unlinkedOnly = false): Promise<boolean> {
    const keys = await this.repos.emails.delete(tenantId, email.id, unlinkedOnly);
    if (keys === undefined) return false;
    await Promise.all(keys.map((key) => this.blobs.delete(key).catch(this.onBackgroundError)));
    await this.events.publish({
      type: 'email.deleted',
      tenantId,
      environmentId: email.environmentId,
      timestamp: new Date().toISOString(),
      data: { id: email.id },
    });
    return true;
  }

  async emlOrThrow(caller: Caller, id: string): Promise<{ stream: Readable; size: number }> {
    const email = await this.getOrThrow(caller, id);
    const key = await this.repos.emails.getEmlKey(caller.tenantId, id);
    if (key === undefined) throw emailNotFound(id);
    return { stream: await this.blobs.getStream(key), size: email.size };
  }

  async attachmentOrThrow(caller: Caller, emailId: string, attachmentId: string): Promise<{ meta: StoredAttachment; stream: Readable }> {
    await this.getOrThrow(caller, emailId);
    const meta = await this.repos.emails.getAttachment(caller.tenantId, emailId, attachmentId);
    if (meta === undefined) throw new NotFoundError('ATTACHMENT_NOT_FOUND', `Attachment ${attachmentId} not found`);
    return { meta, stream: await this.blobs.getStream(meta.blobKey) };
  }

  /** An inboxId filter names an inbox of this tenant, and for an inbox-scoped key its own (403 otherwise, spec 5.4). */
  private async assertInboxVisible(caller: Caller, inboxId: string): Promise<void> {
    if (caller.inboxId !== null && caller.inboxId !== inboxId) throw new ForbiddenError('INBOX_KEY_FORBIDDEN', 'This key is bound to another inbox');
    const inbox = await this.repos.inboxes.get(caller.tenantId, inboxId);
    if (inbox === undefined || !canSeeEnvironment(caller, inbox.environmentId)) throw new NotFoundError('INBOX_NOT_FOUND', `Inbox ${inboxId} not found`);
  }

  /** An inbox-scoped caller's inbox address (undefined for other callers). */
  private async ownAddressOf(caller: Caller): Promise<string | undefined> {
    if (caller.inboxId === null) return undefined;
    return (await this.repos.inboxes.get(caller.tenantId, caller.inboxId))?.address.toLowerCase() ?? '';
  }

  private visible(caller: Caller, email: Email): boolean {
    return caller.environmentId === null || caller.environmentId === email.environmentId;
  }

  private async assertInInbox(inboxId: string, emailId: string): Promise<void> {
    if (!(await this.repos.inboxes.hasEmail(inboxId, emailId))) throw emailNotFound(emailId);
  }
}
