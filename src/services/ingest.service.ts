import { timeOrderedUuid } from '../core/time-ordered-id.js';
import { storedRecipients } from '../core/email-recipients.js';
import { makeSnippet, type AttachmentMeta, type AuthResults, type Email } from '../core/email.js';
import { AppError, InvalidInputError, UnavailableError } from '../core/errors.js';
import type { Extraction } from '../core/extract.js';
import { isSpooled, type MessageBytes } from '../core/message-bytes.js';
import type { BatchCommitFactory, Repositories } from '../adapters/db/repositories/index.js';
import type { NewEmail } from '../adapters/db/repositories/email.repository.js';
import type { ActivityLogEntry } from '../adapters/db/repositories/activity-log.repository.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { DomainEvent, EventBus } from '../ports/event-bus.js';
import type { MessageAnalyzer } from '../ports/message-analyzer.js';
import type { ParsedMessage } from '../ports/mime-parser.js';
import type { IngestParticipant, StoredEmail } from './ingest-participant.js';
import { SERVICE_PLACEMENTS, type BlobPlacements, type EmailBlobPlacement } from './blob-placement.js';
import type { Delivery } from './recipient.service.js';
import { toExtractedView } from './extracted-view.js';
import { spamCheckLogMessage, spamCheckLogMetadata, spamCheckLogStatus, spamFields, type SpamVerdict } from '../core/spam.js';
import type { SpamCheckService } from './spam-check.service.js';

/** One message as it came off the wire, with the recipients already resolved at RCPT TO. */
export interface IncomingMessage {
  /** A large message is in a spool file, stored from there; the caller deletes the file afterwards. */
  raw: MessageBytes;
  mailFrom: string;
  deliveries: Delivery[];
  clientIp: string;
  helo: string;
}

interface InboxMessageRow {
  id: string;
  inboxId: string;
  emailId: string;
  tenantId: string;
  extraction: Extraction;
  createdAt: string;
}

/** Everything one tenant's copy of the message writes, prepared before the transaction opens. */
interface TenantWrite {
  item: NewEmail;
  attachmentBytes: Uint8Array[];
  inboxMessages: InboxMessageRow[];
  logs: ActivityLogEntry[];
  deliveries: Delivery[];
}

function toStoredEmail(write: TenantWrite): StoredEmail {
  return {
    email: write.item.email,
    deliveries: write.deliveries,
    inboxMessages: write.inboxMessages.map(({ id, inboxId, extraction }) => ({ id, inboxId, ...extraction })),
    headers: write.item.headers,
    textBody: write.item.textBody,
    htmlBody: write.item.htmlBody,
  };
}

/**
 * The sender reads this error's message in the 451. A domain error's message is written for it (the
 * recipient's own storage is unavailable); anything else (a blob path in an ENOSPC, a constraint name)
 * stays out of the reply and reaches the server log as the cause.
 */
function storageFailed(error: unknown): UnavailableError {
  const reason = error instanceof AppError ? error.message : 'internal storage error';
  return new UnavailableError('STORAGE_UNAVAILABLE', `Message could not be stored: ${reason}`, undefined, { cause: error });
}

function groupByTenant(deliveries: Delivery[]): Delivery[][] {
  const groups = new Map<string, Delivery[]>();
  for (const delivery of deliveries) {
    const group = groups.get(delivery.tenantId) ?? [];
    if (!group.some((d) => d.address === delivery.address)) group.push(delivery);
    groups.set(delivery.tenantId, group);
  }
  return [...groups.values()];
}

/** Seconds each step of one ingest took (the metrics' stage histogram, docs/operations.md). */
export interface IngestTimings {
  /** Parse, SPF/DKIM/DMARC and extraction (and the spam check beside them), waiting for a worker included. */
  analysis: number;
  /** From the end of the analysis until the attachments and the EML (written beside the analysis) are fsynced. */
  blobs: number;
  /** Waiting for the group commit that holds the rows, and its transaction. */
  rows: number;
}

/** One ingest's rows, waiting to be committed with the ingests that arrive beside it. */
interface PendingRows {
  writes: TenantWrite[];
  stored: StoredEmail[];
}

/**
 * receive → parse → authenticate → store → log → publish, independent of SMTP. Blobs are written
 * first (the EML while the message is analysed) and the rows committed after in one transaction, so a failure anywhere leaves nothing
 * half-written; the caller turns UnavailableError into a 451 so the sender retries. Concurrent
 * ingests' rows are group-committed: one transaction and one multi-row insert per table for all of
 * them, and each ingest returns only after the commit that holds its rows.
 */
export class IngestService {
  private readonly commitRows: (rows: PendingRows) => Promise<void>;
  /** Ingests past the end of DATA whose rows are not queued for a commit yet: while there are none, a batch does not wait. */
  private onTheirWay = 0;

  constructor(
    private readonly analyzer: MessageAnalyzer,
    private readonly blobs: BlobStore,
    batchCommit: BatchCommitFactory,
    private readonly events: EventBus,
    private readonly onBackgroundError: (error: unknown) => void,
    private readonly participants: readonly IngestParticipant[] = [],
    /** Which store and key layout each tenant's mail gets (its own bucket, or the service store). */
    private readonly placements: BlobPlacements = SERVICE_PLACEMENTS,
    /** MAILROOM_MAX_ATTACHMENTS_PER_MESSAGE: more is refused before anything is written. */
    private readonly maxAttachments = Number.POSITIVE_INFINITY,
    /** The spam filter asked before the 250 (docs/spam.md); without it every message is `spamCheck: "off"`. */
    private readonly spam?: SpamCheckService,
  ) {
    this.commitRows = batchCommit(
      (repos, batch: PendingRows[]) => this.writeRows(repos, batch),
      (stored) => this.afterCommit(stored),
      () => this.onTheirWay,
    );
  }

  async ingest(message: IncomingMessage): Promise<{ id: string; timings: IngestTimings }> {
    if (message.deliveries.length === 0) throw new InvalidInputError('NO_RECIPIENTS', 'No valid recipients');
    this.onTheirWay += 1;
    let counted = true;
    const queued = () => {
      if (counted) this.onTheirWay -= 1;
      counted = false;
    };
    try {
      return await this.analyseAndStore(message, queued);
    } finally {
      queued();
    }
  }

  /**
   * `queued` is called once the rows wait for their commit. Where each tenant's copy goes is known
   * from the deliveries, so its EML is written while the message is analysed (docs/decisions.md D37);
   * attachments are known only from the analysis and are written after it.
   */
  private async analyseAndStore(message: IncomingMessage, queued: () => void): Promise<{ id: string; timings: IngestTimings }> {
    const started = performance.now();
    const baseEmailId = timeOrderedUuid();
    const receivedAt = new Date().toISOString();
    const copies = await Promise.all(
      groupByTenant(message.deliveries).map(async (deliveries, index) => {
        const emailId = index === 0 ? baseEmailId : timeOrderedUuid();
        return { deliveries, emailId, placement: await this.placements.placeEmail((deliveries[0] as Delivery).tenantId, emailId, receivedAt) };
      }),
    );
    const written: string[] = [];
    const emls = Promise.allSettled(copies.map(({ placement }) => this.putBlob(placement.emlKey, message.raw, 'message/rfc822', written)));
    let writes: TenantWrite[];
    try {
      const searchCopies = this.analyzer.buildsSearchVectors
        ? copies.map(({ deliveries, placement }) => ({ deliveryAddresses: deliveries.map((d) => d.address), withBody: !placement.metadataOnly }))
        : undefined;
      const [{ parsed, auth, extracted, extractionSkipped, searchVectors }, spam] = await Promise.all([
        this.analyzer.analyze({ raw: message.raw, clientIp: message.clientIp, helo: message.helo, mailFrom: message.mailFrom, searchCopies }),
        this.checkSpam(message),
      ]);
      if (parsed.attachments.length > this.maxAttachments) {
        throw new InvalidInputError('TOO_MANY_ATTACHMENTS', `Message has ${parsed.attachments.length} attachments; the limit is ${this.maxAttachments}`);
      }
      writes = copies.map(({ deliveries, emailId, placement }, index) =>
        this.prepare({ message, parsed, auth, spam, extraction: { extracted, extractionSkipped }, deliveries, baseEmailId, emailId, receivedAt, placement, searchVector: searchVectors?.[index] }),
      );
    } catch (error) {
      // The refusal or failure stands as it is; the EMLs written meanwhile go, once no put is in flight.
      await emls;
      await this.deleteBlobs(written);
      throw error;
    }
    const analysed = performance.now();
    const stored = writes.map(toStoredEmail);
    const { blobsDone, rowsDone } = await this.store(writes, stored, emls, written, queued);
    this.publish(writes);
    const seconds = (from: number, to: number) => (to - from) / 1000;
    return { id: baseEmailId, timings: { analysis: seconds(started, analysed), blobs: seconds(analysed, blobsDone), rows: seconds(blobsDone, rowsDone) } };
  }

  /** Every row of a group of ingests, a statement per table (on PostgreSQL one in all: group-commit.ts); returns what the participants were given. */
  private async writeRows(repos: Repositories, batch: PendingRows[]): Promise<StoredEmail[]> {
    const writes = batch.flatMap((rows) => rows.writes);
    const stored = batch.flatMap((rows) => rows.stored);
    await repos.emails.insertMany(writes.map((w) => w.item));
    await repos.inboxes.insertMessages(writes.flatMap((w) => w.inboxMessages));
    await repos.logs.append(writes.flatMap((w) => w.logs));
    for (const participant of this.participants) await participant.inTransaction?.(repos, stored);
    return stored;
  }

  /** Participants see the same batch after its commit as inside its transaction. */
  private afterCommit(stored: StoredEmail[]): void {
    for (const participant of this.participants) {
      if (participant.afterCommit === undefined) continue;
      Promise.resolve()
        .then(() => participant.afterCommit?.(stored))
        .catch(this.onBackgroundError);
    }
  }

  /** The message's rows did not commit and will not: participants let go of what they set aside for them. */
  private afterFailure(stored: StoredEmail[]): void {
    for (const participant of this.participants) {
      try {
        participant.afterFailure?.(stored);
      } catch (error) {
        this.onBackgroundError(error);
      }
    }
  }

  /** The spam step (docs/spam.md): runs alongside the analysis, within its own deadline, and never fails the message. */
  private checkSpam(message: IncomingMessage): Promise<SpamVerdict> {
    if (this.spam === undefined) return Promise.resolve({ state: 'off' });
    const recipients = [...new Set(message.deliveries.map((d) => d.address))];
    return this.spam.check({ raw: message.raw, clientIp: message.clientIp, helo: message.helo, mailFrom: message.mailFrom, recipients });
  }

  private prepare(args: {
    message: IncomingMessage;
    parsed: ParsedMessage;
    auth: AuthResults;
    spam: SpamVerdict;
    extraction: Extraction;
    deliveries: Delivery[];
    baseEmailId: string;
    emailId: string;
    receivedAt: string;
    placement: EmailBlobPlacement;
    searchVector: string | undefined;
  }): TenantWrite {
    const { message, parsed, auth, spam, extraction, deliveries, baseEmailId, emailId, receivedAt, placement, searchVector } = args;
    const first = deliveries[0] as Delivery;
    const tenantId = first.tenantId;
    const attachments: AttachmentMeta[] = parsed.attachments.map((a) => ({
      id: timeOrderedUuid(),
      filename: a.filename,
      contentType: a.contentType,
      size: a.content.byteLength,
      contentId: a.contentId,
      disposition: a.disposition,
    }));
    const email: Email = {
      id: emailId,
      tenantId,
      environmentId: first.environmentId,
      baseEmailId,
      messageId: parsed.messageId,
      from: parsed.from || message.mailFrom,
      ...storedRecipients(parsed, deliveries.map((d) => d.address)),
      subject: parsed.subject,
      date: parsed.date ?? receivedAt,
      read: false,
      hasAttachments: attachments.length > 0,
      attachments,
      snippet: placement.metadataOnly ? '' : makeSnippet(parsed.text ?? ''),
      ...auth,
      ...spamFields(spam),
      size: message.raw.byteLength,
      remoteAddress: message.clientIp,
      envelope: { mailFrom: message.mailFrom, helo: message.helo || null },
      createdAt: receivedAt,
      updatedAt: receivedAt,
    };
    // One message per inbox, even when the mail named its address and an alias.
    const inboxIds = new Set(deliveries.flatMap((d) => (d.inboxId === null ? [] : [d.inboxId])));
    const inboxMessages = [...inboxIds].map((inboxId) => ({ id: timeOrderedUuid(), inboxId, emailId, tenantId, extraction, createdAt: receivedAt }));
    return {
      item: {
        email,
        textBody: placement.metadataOnly ? null : parsed.text,
        htmlBody: placement.metadataOnly ? null : parsed.html,
        headers: parsed.headers,
        emlKey: placement.emlKey,
        attachmentKeys: attachments.map((a) => placement.attachmentKey(a.id, a.filename)),
        spamRecheckAt: this.spam?.firstRecheckAt(spam, receivedAt) ?? null,
        searchVector,
      },
      attachmentBytes: parsed.attachments.map((a) => a.content),
      inboxMessages,
      logs: this.receptionLogs(email, message, deliveries),
      deliveries,
    };
  }

  /** Each entry starts with its id, not with `...common`: a literal that starts with a spread gets a hidden class of its own on Node 20 (D66). */
  private receptionLogs(email: Email, message: IncomingMessage, deliveries: Delivery[]): ActivityLogEntry[] {
    const common = { tenantId: email.tenantId, environmentId: email.environmentId, emailId: email.id, createdAt: email.createdAt };
    const recipients = deliveries.map((d) => d.address);
    return [
      {
        id: timeOrderedUuid(),
        ...common,
        type: 'SMTP_RECEIVED',
        status: 'SUCCESS',
        message: `Email received from ${email.from || '<>'} for ${recipients.join(', ')}`,
        metadata: {
          baseEmailId: email.baseEmailId,
          from: email.from,
          to: recipients,
          subject: email.subject,
          remoteAddress: message.clientIp,
          size: email.size,
        },
      },
      {
        id: timeOrderedUuid(),
        ...common,
        type: 'SPAM_CHECK',
        status: spamCheckLogStatus(email, email),
        message: spamCheckLogMessage(email.authSummary, email),
        metadata: spamCheckLogMetadata(email, email),
      },
    ];
  }

  /**
   * The EMLs already on their way and the attachments first, then the rows, which keep the keys the
   * puts returned (a store may place a blob under a key of its own, ports/blob-store.ts); returns
   * when (performance.now()) each was done.
   */
  private async store(
    writes: TenantWrite[],
    stored: StoredEmail[],
    emls: Promise<PromiseSettledResult<string>[]>,
    written: string[],
    queued: () => void,
  ): Promise<{ blobsDone: number; rowsDone: number }> {
    try {
      // allSettled, not all: cleanup below must not race a put that is still in flight.
      const attachments = Promise.allSettled(writes.flatMap((w) => this.writeAttachments(w, written)));
      const [emlPuts, attachmentPuts] = await Promise.all([emls, attachments]);
      const failed = [...emlPuts, ...attachmentPuts].find((put): put is PromiseRejectedResult => put.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
      for (const [i, write] of writes.entries()) write.item.emlKey = (emlPuts[i] as PromiseFulfilledResult<string>).value;
      const blobsDone = performance.now();
      queued();
      await this.commitRows({ writes, stored });
      return { blobsDone, rowsDone: performance.now() };
    } catch (error) {
      this.afterFailure(stored);
      await this.deleteBlobs(written);
      throw storageFailed(error);
    }
  }

  private async deleteBlobs(keys: string[]): Promise<void> {
    await Promise.all(keys.map((key) => this.blobs.delete(key).catch(this.onBackgroundError)));
  }

  /**
   * Resolves to the key the blob was stored under. `written` gets the key asked for before the put
   * (a failed upload may have left part of an object there) and the stored key after it.
   */
  private async putBlob(key: string, bytes: MessageBytes, contentType: string, written: string[]): Promise<string> {
    written.push(key);
    const stored = await (isSpooled(bytes) ? this.blobs.putFile(key, bytes.path, contentType) : this.blobs.put(key, bytes, contentType));
    if (stored !== key) written.push(stored);
    return stored;
  }

  private writeAttachments(write: TenantWrite, written: string[]): Promise<void>[] {
    const { item } = write;
    return write.attachmentBytes.map(async (bytes, i) => {
      item.attachmentKeys[i] = await this.putBlob(
        item.attachmentKeys[i] as string,
        Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
        item.email.attachments[i]?.contentType ?? 'application/octet-stream',
        written,
      );
    });
  }

  private publish(writes: TenantWrite[]): void {
    for (const write of writes) {
      const { email } = write.item;
      const first = write.deliveries[0] as Delivery;
      const events: DomainEvent[] = [
        {
          type: 'email.received',
          tenantId: email.tenantId,
          environmentId: email.environmentId,
          timestamp: email.createdAt,
          data: {
            id: email.id,
            from: email.from,
            to: email.to,
            subject: email.subject,
            domain: first.domain,
            domainId: first.domainId,
            createdAt: email.createdAt,
            hasAttachments: email.hasAttachments,
            attachmentCount: email.attachments.length,
          },
        },
        ...write.inboxMessages.map(
          (m): DomainEvent => ({
            type: 'inbox.message',
            tenantId: email.tenantId,
            environmentId: email.environmentId,
            inboxId: m.inboxId,
            timestamp: email.createdAt,
            data: { inboxId: m.inboxId, messageId: m.id, emailId: email.id, from: email.from, subject: email.subject, extracted: toExtractedView(m.extraction.extracted), extractionSkipped: m.extraction.extractionSkipped },
          }),
        ),
      ];
      for (const event of events) this.events.publish(event).catch(this.onBackgroundError);
    }
  }
}
