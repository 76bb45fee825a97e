import { randomUUID } from 'node:crypto';
import { canSeeEnvironment, type Caller } from '../core/api-key.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { EmailFilter } from '../adapters/db/repositories/email.repository.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { EventBus } from '../ports/event-bus.js';
import { scopedFilter } from './email.service.js';
import type { InboxService } from './inbox.service.js';

/** Which emails a bulk action takes: listed ids (at most BULK_MAX_IDS) or everything a list filter and `q` match. */
export type BulkSelection = { ids: string[] } | { filter: EmailFilter; q?: string };

export const BULK_MAX_IDS = 1000;
/** Rows per statement; a filter selecting 100,000 emails is worked through in batches. */
const BATCH = 500;

interface BulkEntry {
  action: 'delete' | 'read' | 'unread' | 'empty-inbox';
  count: number;
  message: string;
  metadata: Record<string, unknown>;
}

/**
 * Deleting and marking many emails in one call (docs/api.md#bulk-actions). Emails of another tenant,
 * environment or inbox than the caller's are never selected, so ids from elsewhere are neither touched
 * nor revealed: the count says only how many of the caller's emails changed. A filter is bounded by
 * the time of the request, so mail arriving meanwhile is left alone and the work ends.
 */
export class EmailBulkService {
  constructor(
    private readonly repos: Repositories,
    private readonly blobs: BlobStore,
    private readonly events: EventBus,
    private readonly inboxes: InboxService,
    private readonly onBackgroundError: (error: unknown) => void,
  ) {}

  async delete(caller: Caller, selection: BulkSelection): Promise<{ deleted: number }> {
    const deleted = await this.deleteMatching(caller, this.filterOf(caller, selection), caller.inboxId ?? undefined);
    await this.record(caller, { action: 'delete', count: deleted, message: `Deleted ${plural(deleted)}`, metadata: describe(selection) });
    return { deleted };
  }

  async setRead(caller: Caller, selection: BulkSelection, read: boolean): Promise<{ updated: number }> {
    const filter = this.filterOf(caller, selection);
    let updated = 0;
    if (filter !== undefined) {
      for (;;) {
        const batch = await this.repos.emails.matchingBatch(caller.tenantId, filter, BATCH, !read);
        if (batch.length === 0) break;
        const at = new Date().toISOString();
        updated += await this.repos.emails.setReadMany(caller.tenantId, batch.map((e) => e.id), read, at);
        for (const email of batch) await this.publish(caller.tenantId, email.environmentId, 'email.updated', { id: email.id, changes: { read } }, at);
      }
    }
    const state = read ? 'read' : 'unread';
    await this.record(caller, { action: state, count: updated, message: `Marked ${plural(updated)} ${state}`, metadata: describe(selection) });
    return { updated };
  }

  /** Removes every message of the inbox; an email that also reached another inbox stays there (the email goes with its last copy). */
  async emptyInbox(caller: Caller, inboxId: string): Promise<{ deleted: number }> {
    const inbox = await this.inboxes.getRecordOrThrow(caller, inboxId);
    const deleted = await this.deleteMatching(caller, this.filterOf(caller, { filter: { inboxId } }), inboxId);
    await this.record(caller, { action: 'empty-inbox', count: deleted, message: `Emptied ${inbox.address}: deleted ${plural(deleted)}`, metadata: { inboxId } });
    return { deleted };
  }

  /**
   * Deletes the matching emails in batches. With `inboxId` (an inbox-scoped caller, or emptying one
   * inbox) only that inbox's copies go, and each email itself only with its last copy (as a single delete).
   */
  private async deleteMatching(caller: Caller, filter: EmailFilter | undefined, inboxId?: string): Promise<number> {
    let deleted = 0;
    while (filter !== undefined) {
      const batch = await this.repos.emails.matchingBatch(caller.tenantId, filter, BATCH);
      if (batch.length === 0) break;
      const ids = batch.map((e) => e.id);
      const removed =
        inboxId === undefined
          ? await this.repos.emails.deleteMany(caller.tenantId, ids).then((rows) => ({ ...rows, copies: rows.deleted.length }))
          : await this.removeInboxCopies(caller.tenantId, inboxId, ids);
      deleted += removed.copies;
      await Promise.all(removed.blobKeys.map((key) => this.blobs.delete(key).catch(this.onBackgroundError)));
      const gone = new Set(removed.deleted);
      const at = new Date().toISOString();
      for (const email of batch.filter((e) => gone.has(e.id))) await this.publish(caller.tenantId, email.environmentId, 'email.deleted', { id: email.id }, at);
    }
    return deleted;
  }

  private async removeInboxCopies(tenantId: string, inboxId: string, ids: string[]): Promise<{ copies: number; deleted: string[]; blobKeys: string[] }> {
    const result = { copies: 0, deleted: [] as string[], blobKeys: [] as string[] };
    for (const id of ids) {
      if (!(await this.repos.inboxes.removeMessageOf(inboxId, id))) continue;
      result.copies += 1;
      const keys = await this.repos.emails.delete(tenantId, id, true);
      if (keys === undefined) continue;
      result.deleted.push(id);
      result.blobKeys.push(...keys);
    }
    return result;
  }

  /** The caller's scope over the selection, bounded by now; undefined when the caller can see none of it. */
  private filterOf(caller: Caller, selection: BulkSelection): EmailFilter | undefined {
    const filter: EmailFilter = 'ids' in selection ? { ids: selection.ids } : selection.filter;
    if (!canSeeEnvironment(caller, filter.environmentId)) return undefined;
    const now = new Date().toISOString();
    return { ...scopedFilter(caller, filter), createdBefore: filter.createdBefore !== undefined && filter.createdBefore < now ? filter.createdBefore : now };
  }

  private publish(tenantId: string, environmentId: string, type: 'email.deleted' | 'email.updated', data: Record<string, unknown>, timestamp: string) {
    return this.events.publish({ type, tenantId, environmentId, timestamp, data });
  }

  private record(caller: Caller, entry: BulkEntry): Promise<void> {
    return this.repos.logs.append([
      {
        id: randomUUID(),
        tenantId: caller.tenantId,
        environmentId: caller.environmentId,
        emailId: null,
        type: 'BULK_ACTION',
        status: 'SUCCESS',
        message: entry.message,
        metadata: { action: entry.action, count: entry.count, ...entry.metadata },
        createdAt: new Date().toISOString(),
      },
    ]);
  }
}

const plural = (n: number) => `${n} email${n === 1 ? '' : 's'}`;

function describe(selection: BulkSelection): Record<string, unknown> {
  if ('ids' in selection) return { selection: 'ids', ids: selection.ids.length };
  const { search: _search, ...filter } = selection.filter;
  return { selection: 'filter', filter, ...(selection.q === undefined ? {} : { q: selection.q }) };
}
