import { randomUUID } from 'node:crypto';
import type { Caller } from '../core/api-key.js';
import { buildChatMessage } from '../core/chatapp-message.js';
import type { Email } from '../core/email.js';
import { InvalidInputError, NotFoundError } from '../core/errors.js';
import { sealContext, type SecretSealer } from '../core/sealed-secrets.js';
import { nextRetryDelay } from '../core/retry-schedule.js';
import { NOTIFICATION_LOG_TYPES, type LogStatus, type NotificationLogType } from '../core/vocab.js';
import { buildWebhookPayload } from '../core/webhook-payload.js';
import { locateEmail } from './email-storage-location.js';
import { signBody, signTimestamped } from '../core/webhook-signature.js';
import type { Repositories, UnitOfWork } from '../adapters/db/repositories/index.js';
import type { ActivityLogEntry } from '../adapters/db/repositories/activity-log.repository.js';
import type { DeliveryJob } from '../adapters/db/repositories/delivery.repository.js';
import type { HttpAttemptResult, HttpSender } from '../ports/http-sender.js';

export interface DeliverySettings {
  retryScheduleMs: readonly number[];
  /** Base of the chat app's bot API (a setting, so tests point it at a local server). */
  chatappApiUrl: string;
  /** Dashboard base URL for the link in chat-app messages. */
  publicUrl: string;
  /** How long a claim is ours; longer than one attempt can take, so a live worker never loses it. */
  leaseMs: number;
  /** Jobs of one tenant in flight at once, over all nodes. */
  concurrencyPerTenant: number;
}

export interface AttemptOutcome {
  status: LogStatus;
  message: string;
  logId: string;
  /** False when another worker took the job over (our lease ran out) and this attempt was not recorded. */
  recorded: boolean;
}

export interface ResendResult {
  success: boolean;
  message: string;
  newLogId: string;
}

/** What one attempt sends (or why nothing can be sent), and what its log entry says about the target. */
interface PreparedAttempt {
  request?: { url: string; body: Buffer; headers: Record<string, string>; label: string };
  problem?: string;
  details: Record<string, unknown>;
}

const UNOPENABLE = "the stored secret could not be decrypted with this node's key (every node must have the same MAILROOM_STORAGE_ENCRYPTION_KEY)";

const isNotificationType = (type: string): type is NotificationLogType => (NOTIFICATION_LOG_TYPES as readonly string[]).includes(type);

function humanDelay(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

/** The human-readable line of an attempt's log entry. */
function describeAttempt(status: LogStatus, attemptsMade: number, prepared: PreparedAttempt, result: HttpAttemptResult | undefined, delay: number | undefined): string {
  const to = prepared.request === undefined ? '' : ` to ${prepared.request.label}`;
  const reason = result === undefined ? (prepared.problem ?? 'not sent') : result.statusCode === null ? (result.error ?? 'no response') : `HTTP ${result.statusCode}`;
  if (status === 'SUCCESS') return `Delivered${to} (${reason}) in ${result?.durationMs} ms`;
  if (status === 'PENDING') return `Attempt ${attemptsMade}${to} failed (${reason}); retrying in ${humanDelay(delay as number)}`;
  return `Delivery${to} failed after ${attemptsMade} attempt${attemptsMade === 1 ? '' : 's'} (${reason})`;
}

/**
 * Sends one attempt of a queued notification and records its outcome: a WEBHOOK, CHATAPP or
 * CHATAPP_BOT log entry per attempt (PENDING while retries remain, SUCCESS or FAILED at the end),
 * written in the same transaction that finishes or reschedules the job. The payload is built from
 * the stored email at attempt time.
 */
export class DeliveryService {
  /** Owner name of this node's claims. */
  readonly workerId = randomUUID();

  constructor(
    private readonly repos: Repositories,
    private readonly unitOfWork: UnitOfWork,
    private readonly sender: HttpSender,
    private readonly settings: DeliverySettings,
    private readonly sealer: SecretSealer,
  ) {}

  /** Through the unit of work, so on SQLite a claim commits together with concurrent ingests. */
  claim(limit: number): Promise<DeliveryJob[]> {
    return this.unitOfWork((repos) => repos.deliveries.claim(this.workerId, limit, Date.now(), this.settings.leaseMs, this.settings.concurrencyPerTenant));
  }

  /**
   * Clean shutdown, once the worker has stopped (no attempt in flight): jobs this node claimed but
   * did not start go back to the queue now, for other nodes, instead of when their lease ends.
   */
  releaseClaims(): Promise<number> {
    return this.repos.deliveries.release(this.workerId, Date.now());
  }

  async deliver(job: DeliveryJob): Promise<AttemptOutcome> {
    const prepared = await this.prepare(job);
    const result = prepared.request && (await this.sender.post(prepared.request.url, prepared.request.body, prepared.request.headers));
    const attemptsMade = job.attemptsMade + 1;
    const maxAttempts = job.maxAttempts ?? this.settings.retryScheduleMs.length + 1;
    const retryable = result !== undefined && !result.ok && !result.blocked && attemptsMade < maxAttempts;
    const delay = retryable ? nextRetryDelay(this.settings.retryScheduleMs, attemptsMade) : undefined;
    const status: LogStatus = result?.ok ? 'SUCCESS' : delay !== undefined ? 'PENDING' : 'FAILED';
    const message = describeAttempt(status, attemptsMade, prepared, result, delay);
    const statusCode = result?.statusCode ?? null;
    const entry: ActivityLogEntry = {
      id: randomUUID(),
      tenantId: job.tenantId,
      environmentId: job.environmentId,
      emailId: job.emailId,
      type: job.targetKind,
      status,
      message,
      metadata: {
        ...prepared.details,
        emailId: job.emailId,
        deliveryId: job.deliveryId,
        attemptsMade,
        statusCode,
        durationMs: result?.durationMs ?? 0,
        ...(statusCode === null ? { error: result?.error ?? prepared.problem } : {}),
        ...(delay === undefined ? {} : { nextAttemptAt: new Date(Date.now() + delay).toISOString() }),
      },
      createdAt: new Date().toISOString(),
      targetId: job.targetId,
    };
    const recorded = await this.unitOfWork(async (repos) => {
      const held =
        delay === undefined ? await repos.deliveries.finish(job, this.workerId) : await repos.deliveries.retryLater(job, this.workerId, Date.now() + delay);
      if (held) await repos.logs.append([entry]);
      return held;
    });
    return { status, message, logId: entry.id, recorded };
  }

  /** A new attempt, now, for a FAILED notification entry; its outcome is a new log entry. */
  async resend(caller: Caller, logId: string): Promise<ResendResult> {
    const entry = await this.repos.logs.get(caller.tenantId, logId);
    if (entry === undefined || (caller.environmentId !== null && entry.environmentId !== caller.environmentId)) {
      throw new NotFoundError('LOG_NOT_FOUND', `Log entry ${logId} not found`);
    }
    if (!isNotificationType(entry.type) || entry.status !== 'FAILED' || !entry.targetId || entry.emailId === null) {
      throw new InvalidInputError('NOT_RESENDABLE', `Only FAILED WEBHOOK, CHATAPP or CHATAPP_BOT entries can be resent; this one is ${entry.type} ${entry.status}`);
    }
    const previousAttempts = typeof entry.metadata.attemptsMade === 'number' ? entry.metadata.attemptsMade : 0;
    const job: DeliveryJob = {
      id: randomUUID(),
      deliveryId: typeof entry.metadata.deliveryId === 'string' ? entry.metadata.deliveryId : randomUUID(),
      tenantId: entry.tenantId,
      environmentId: entry.environmentId,
      emailId: entry.emailId,
      targetKind: entry.type,
      targetId: entry.targetId,
      attemptsMade: previousAttempts,
      maxAttempts: previousAttempts + 1,
    };
    // Queued under our own claim first, so a crash mid-attempt still leaves a job that gets retried.
    await this.repos.deliveries.enqueue([job], Date.now() + this.settings.leaseMs, this.workerId);
    const outcome = await this.deliver(job);
    return { success: outcome.status === 'SUCCESS', message: outcome.message, newLogId: outcome.logId };
  }

  /** undefined when this node's key cannot open it (nodes with different keys): the attempt fails, logged. */
  private opened(sealed: string, context: string): string | undefined {
    try {
      return this.sealer.open(sealed, context);
    } catch {
      return undefined;
    }
  }

  private async prepare(job: DeliveryJob): Promise<PreparedAttempt> {
    const details = job.targetKind === 'WEBHOOK' ? { webhookId: job.targetId } : job.targetKind === 'CHATAPP' ? { integrationId: job.targetId } : { channelConfigId: job.targetId };
    const email = await this.repos.emails.get(job.tenantId, job.emailId);
    if (email === undefined) return { problem: 'the email was deleted', details };
    return job.targetKind === 'WEBHOOK' ? this.prepareWebhook(job, email, details) : this.prepareChatMessage(job, email, details);
  }

  private async prepareWebhook(job: DeliveryJob, email: Email, details: Record<string, unknown>): Promise<PreparedAttempt> {
    const [webhook, content, storage] = await Promise.all([
      this.repos.webhooks.getDeliveryTarget(job.tenantId, job.targetId),
      this.repos.emails.getContent(job.tenantId, job.emailId),
      locateEmail(this.repos, job.tenantId, job.emailId),
    ]);
    if (webhook === undefined) return { problem: 'the webhook was deleted', details };
    if (!webhook.active) return { problem: 'the webhook is inactive', details };
    if (content === undefined) return { problem: 'the email was deleted', details };
    const secret = this.opened(webhook.secret, sealContext.webhookSecret(job.targetId));
    if (secret === undefined) return { problem: UNOPENABLE, details };
    const body = Buffer.from(JSON.stringify(buildWebhookPayload(email, content, storage)));
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'x-webhook-signature': signBody(secret, body),
      'x-email-id': email.id,
      'x-webhook-delivery-id': job.deliveryId,
      'x-webhook-timestamp': String(timestamp),
      'x-webhook-timestamp-signature': signTimestamped(secret, job.deliveryId, timestamp, body),
      'x-webhook-attempt': String(job.attemptsMade + 1),
    };
    return { request: { url: webhook.url, label: webhook.url, body, headers }, details };
  }

  private async prepareChatMessage(job: DeliveryJob, email: Email, details: Record<string, unknown>): Promise<PreparedAttempt> {
    const integration = await this.repos.chatappIntegrations.get(job.tenantId, job.targetId);
    if (integration === undefined) return { problem: 'the integration was deleted', details };
    if (!integration.active) return { problem: 'the integration is inactive', details };
    const body = Buffer.from(JSON.stringify(buildChatMessage(email, `${this.settings.publicUrl}/emails/${encodeURIComponent(email.id)}`)));
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (integration.kind === 'webhook' && integration.url !== null) {
      return { request: { url: integration.url, label: 'the chat-app webhook', body, headers }, details };
    }
    const token = this.opened(integration.botToken ?? '', sealContext.botToken(integration.id));
    if (token === undefined) return { problem: UNOPENABLE, details };
    const url = `${this.settings.chatappApiUrl}/channels/${encodeURIComponent(integration.channelId ?? '')}/messages`;
    return {
      request: { url, label: `chat-app channel ${integration.channelId}`, body, headers: { ...headers, authorization: `Bot ${token}` } },
      details: { ...details, channelId: integration.channelId, guildId: integration.guildId },
    };
  }
}
