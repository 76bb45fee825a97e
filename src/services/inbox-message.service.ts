import type { Caller } from '../core/api-key.js';
import { InvalidInputError, NotFoundError } from '../core/errors.js';
import type { Page, PageRequest } from '../core/pagination.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { InboxMessageRecord } from '../adapters/db/repositories/inbox-message.repository.js';
import type { InboxService } from './inbox.service.js';
import type { MessageWaiters, WaitCriteria } from './message-waiters.js';

/** Spec 8: the wait-for-message timeout. */
export const WAIT_TIMEOUT_MS = { default: 30_000, max: 60_000 } as const;

export interface WaitRequest extends WaitCriteria {
  timeoutMs: number;
  /** Only messages stored after this message of the same inbox. */
  afterId?: string;
}

/** Reading an inbox's messages (spec 2.6) and waiting for the next one. */
export class InboxMessageService {
  constructor(
    private readonly repos: Repositories,
    private readonly inboxes: InboxService,
    private readonly waiters: MessageWaiters,
  ) {}

  /** Newest first; with afterId, the messages received after that one, oldest first (as /wait). */
  async list(caller: Caller, inboxId: string, request: PageRequest & { afterId?: string }): Promise<Page<InboxMessageRecord>> {
    await this.inboxes.getRecordOrThrow(caller, inboxId);
    const afterUid = await this.afterUid(inboxId, request.afterId);
    return this.repos.inboxMessages.list(inboxId, { page: request.page, perPage: request.perPage, afterUid });
  }

  async getOrThrow(caller: Caller, inboxId: string, messageId: string): Promise<InboxMessageRecord> {
    await this.inboxes.getRecordOrThrow(caller, inboxId);
    const message = await this.repos.inboxMessages.get(inboxId, messageId);
    if (message === undefined) throw new NotFoundError('MESSAGE_NOT_FOUND', `Message ${messageId} not found in inbox ${inboxId}`);
    return message;
  }

  /**
   * The earliest matching message (after `afterId`), at once if one is stored already, else the
   * first one to arrive before the timeout; undefined when none did or the client went away. The
   * waiter is registered before the existing messages are read, so a message committed in between
   * is not missed; waking is by event, never by re-querying on a timer.
   */
  async wait(caller: Caller, inboxId: string, request: WaitRequest, signal?: AbortSignal): Promise<InboxMessageRecord | undefined> {
    if (request.timeoutMs < 0 || request.timeoutMs > WAIT_TIMEOUT_MS.max) {
      throw new InvalidInputError('INVALID_TIMEOUT', `timeout must be between 0 and ${WAIT_TIMEOUT_MS.max} ms`, { field: 'timeout' });
    }
    await this.inboxes.getRecordOrThrow(caller, inboxId);
    const afterUid = await this.afterUid(inboxId, request.afterId);
    const criteria: WaitCriteria = { subject: request.subject, from: request.from };
    const pending = this.waiters.wait(inboxId, criteria, request.timeoutMs, signal);
    try {
      const existing = await this.repos.inboxMessages.findFirst(inboxId, { ...criteria, afterUid });
      if (existing !== undefined) return existing;
      const messageId = await pending.message;
      return messageId === undefined ? undefined : await this.repos.inboxMessages.get(inboxId, messageId);
    } finally {
      pending.cancel();
    }
  }

  /** Clients waiting right now, on every inbox of this node. */
  waiting(): number {
    return this.waiters.size;
  }

  private async afterUid(inboxId: string, afterId: string | undefined): Promise<number | undefined> {
    if (afterId === undefined) return undefined;
    const uid = await this.repos.inboxMessages.getUid(inboxId, afterId);
    if (uid === undefined) throw new InvalidInputError('INVALID_AFTER_ID', 'afterId is not a message of this inbox', { field: 'afterId' });
    return uid;
  }
}
