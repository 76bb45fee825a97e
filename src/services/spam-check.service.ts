import { randomUUID } from 'node:crypto';
import { spamCheckLogMessage, spamCheckLogMetadata, spamCheckLogStatus, spamFields, type SpamFields, type SpamVerdict } from '../core/spam.js';
import type { Email } from '../core/email.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { SpamRecheck } from '../adapters/db/repositories/email.repository.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { EventBus } from '../ports/event-bus.js';
import type { SpamFilter, SpamFilterInput } from '../ports/spam-filter.js';

export interface SpamCheckOptions {
  /** How long the 250 waits for the filter. */
  timeoutMs: number;
  /** The first recheck of mail the filter missed comes this long after it arrived; later ones back off. */
  recheckIntervalMs: number;
}

/** Mail the filter could not check is tried again for this long, then left `unavailable`. */
export const RECHECK_GIVE_UP_MS = 24 * 3_600_000;
/** The back-off between rechecks never grows past this. */
const MAX_RECHECK_GAP_MS = 3_600_000;
/** Emails one recheck round asks the filter about (the task runs again at once while there are more). */
const RECHECK_BATCH = 20;

/** The filter's input for a stored email: its envelope as recorded, every recipient it was delivered to. */
function recheckInput(email: Email, raw: Buffer): SpamFilterInput {
  return {
    raw,
    clientIp: email.remoteAddress ?? '',
    helo: email.envelope.helo ?? '',
    mailFrom: email.envelope.mailFrom ?? '',
    recipients: [...new Set([...email.to, ...email.cc, ...email.bcc])],
  };
}

/**
 * The spam score of every message (docs/spam.md): asked of the filter before the 250 within a short
 * deadline, and, for mail the filter missed, again later by the recheck worker, which stores the
 * verdict, logs a SPAM_CHECK entry and publishes email.updated. With no filter configured every
 * message is `off`.
 */
export class SpamCheckService {
  constructor(
    private readonly filter: SpamFilter | undefined,
    private readonly options: SpamCheckOptions,
    private readonly repos: Repositories,
    private readonly blobs: BlobStore,
    private readonly events: EventBus,
    private readonly now: () => number = Date.now,
  ) {}

  /** Never throws: a filter that is down or slow gives `unavailable`, and the mail is accepted. */
  async check(input: SpamFilterInput): Promise<SpamVerdict> {
    if (this.filter === undefined) return { state: 'off' };
    try {
      return { state: 'done', report: await this.filter.check(input, this.options.timeoutMs) };
    } catch (error) {
      return { state: 'unavailable', reason: (error as Error).message };
    }
  }

  /** When the recheck worker first looks at mail with this verdict (null: it has nothing to do). */
  firstRecheckAt(verdict: SpamVerdict, receivedAt: string): string | null {
    return verdict.state === 'unavailable' ? new Date(Date.parse(receivedAt) + this.options.recheckIntervalMs).toISOString() : null;
  }

  /**
   * One round of the recheck worker: asks the spam filter again about mail it could not check before
   * the 250; returns how many emails it looked at. The work is durable (spam_recheck_at), so a restart loses none.
   */
  async recheckDue(): Promise<number> {
    if (this.filter === undefined) return 0;
    const due = await this.repos.emails.dueSpamRechecks(new Date(this.now()).toISOString(), RECHECK_BATCH);
    for (const item of due) await this.recheck(item);
    return due.length;
  }

  close(): void {
    this.filter?.close();
  }

  private async recheck({ email, emlKey, attempts }: SpamRecheck): Promise<void> {
    let raw: Buffer;
    try {
      raw = await this.blobs.getBuffer(emlKey);
    } catch {
      // The EML is gone (deleted with its email, or its bucket is unreachable): try later or give up like a filter failure.
      await this.postpone(email, attempts + 1);
      return;
    }
    const verdict = await this.check(recheckInput(email, raw));
    if (verdict.state !== 'done') {
      await this.postpone(email, attempts + 1);
      return;
    }
    const fields = spamFields(verdict);
    const at = new Date(this.now()).toISOString();
    if (!(await this.repos.emails.setSpamVerdict(email.id, fields, at))) return;
    await this.repos.logs.append([this.logEntry(email, fields, at)]);
    await this.events.publish({ type: 'email.updated', tenantId: email.tenantId, environmentId: email.environmentId, timestamp: at, data: { id: email.id, changes: fields } });
  }

  private async postpone(email: Email, attempts: number): Promise<void> {
    const gap = Math.min(this.options.recheckIntervalMs * 2 ** attempts, MAX_RECHECK_GAP_MS);
    const next = this.now() + gap;
    const givenUp = next - Date.parse(email.createdAt) > RECHECK_GIVE_UP_MS;
    await this.repos.emails.postponeSpamRecheck(email.id, givenUp ? null : new Date(next).toISOString(), attempts);
  }

  private logEntry(email: Email, spam: SpamFields, at: string) {
    return {
      id: randomUUID(),
      tenantId: email.tenantId,
      environmentId: email.environmentId,
      emailId: email.id,
      type: 'SPAM_CHECK' as const,
      status: spamCheckLogStatus(email, spam),
      message: spamCheckLogMessage(email.authSummary, spam),
      metadata: spamCheckLogMetadata(email, spam),
      createdAt: at,
    };
  }
}
