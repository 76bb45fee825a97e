import { randomUUID } from 'node:crypto';
import type { Caller } from '../core/api-key.js';
import { InvalidInputError, NotFoundError } from '../core/errors.js';
import type { Page, PageRequest } from '../core/pagination.js';
import { sealContext, type SecretSealer } from '../core/sealed-secrets.js';
import { WEBHOOK_EVENTS, type LogStatus, type WebhookEvent } from '../core/vocab.js';
import { generateWebhookSecret, maskSecret } from '../core/webhook-signature.js';
import type { Repositories, UnitOfWork } from '../adapters/db/repositories/index.js';
import type { ActivityLogEntry } from '../adapters/db/repositories/activity-log.repository.js';
import type { WebhookChanges, WebhookRecord } from '../adapters/db/repositories/webhook.repository.js';
import type { HttpSender } from '../ports/http-sender.js';
import { checkedDestination } from './destination.js';
import type { InboxService } from './inbox.service.js';
import type { TenantLimits } from './tenant-limits.js';

export interface WebhookInput {
  url: string;
  events?: string[];
  description?: string;
  active?: boolean;
  /** The caller's own signing secret; generated when omitted. */
  secret?: string;
}

export type WebhookUpdate = Partial<WebhookInput>;

/** A new webhook, optionally linked to one inbox in the same transaction. */
export interface NewWebhook extends WebhookInput {
  inboxId?: string;
}

/** A webhook as the API shows it: `secret` in full only right after creation or rotation. */
export type WebhookView = Omit<WebhookRecord, 'tenantId'>;

/** The outcome of linking a webhook to an inbox: `created` when the call made a new webhook, `linked` when it made a new link. */
export interface InboxHookLink {
  webhook: WebhookView;
  created: boolean;
  linked: boolean;
}

const webhookNotFound = (id: string) => new NotFoundError('WEBHOOK_NOT_FOUND', `Webhook ${id} not found`);


function validEvents(events: string[] | undefined): WebhookEvent[] | undefined {
  if (events === undefined) return undefined;
  const unknown = events.find((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e));
  if (unknown !== undefined) {
    throw new InvalidInputError('INVALID_EVENTS', `events contains unknown value "${unknown}"; allowed: ${WEBHOOK_EVENTS.join(', ')}`, { field: 'events' });
  }
  return [...new Set(events)] as WebhookEvent[];
}

/** Webhook management: CRUD, secret rotation, inbox links, and each webhook's delivery log. */
export class WebhookService {
  constructor(
    private readonly repos: Repositories,
    private readonly unitOfWork: UnitOfWork,
    private readonly sender: HttpSender,
    private readonly inboxes: InboxService,
    private readonly limits: TenantLimits,
    private readonly sealer: SecretSealer,
  ) {}

  private toWebhookView(record: WebhookRecord, revealSecret = false): WebhookView {
    const { tenantId: _tenantId, secret: sealed, ...rest } = record;
    const secret = this.sealer.open(sealed, sealContext.webhookSecret(record.id));
    return { ...rest, secret: revealSecret ? secret : maskSecret(secret) };
  }

  /** The caller's own secret, or a generated one, sealed for this webhook's row. */
  private sealedSecret(webhookId: string, secret = generateWebhookSecret()): string {
    return this.sealer.seal(secret, sealContext.webhookSecret(webhookId));
  }

  async create(caller: Caller, input: NewWebhook): Promise<WebhookView> {
    const { inboxId } = input;
    if (inboxId !== undefined) await this.inboxes.getRecordOrThrow(caller, inboxId);
    const record = await this.newRecord(caller, input);
    await this.unitOfWork(async (repos) => {
      await repos.webhooks.insert(record);
      if (inboxId !== undefined) await repos.webhooks.link(caller.tenantId, record.id, inboxId, record.createdAt);
    });
    return this.toWebhookView({ ...record, inboxIds: inboxId === undefined ? [] : [inboxId] }, true);
  }

  async list(caller: Caller, request: PageRequest): Promise<Page<WebhookView>> {
    const page = await this.repos.webhooks.list(caller.tenantId, request);
    return { ...page, data: page.data.map((w) => this.toWebhookView(w)) };
  }

  async get(caller: Caller, id: string): Promise<WebhookView> {
    return this.toWebhookView(await this.recordOrThrow(caller, id));
  }

  async update(caller: Caller, id: string, input: WebhookUpdate): Promise<WebhookView> {
    await this.recordOrThrow(caller, id);
    const changes: WebhookChanges = {
      ...(input.url === undefined ? {} : { url: await checkedDestination(this.sender, input.url) }),
      ...(input.events === undefined ? {} : { events: validEvents(input.events) }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.active === undefined ? {} : { active: input.active }),
      ...(input.secret === undefined ? {} : { secret: this.sealedSecret(id, input.secret) }),
    };
    await this.repos.webhooks.update(caller.tenantId, id, changes, new Date().toISOString());
    return this.get(caller, id);
  }

  /** Deletes the webhook with its inbox links and queued deliveries; its log entries stay. */
  async delete(caller: Caller, id: string): Promise<void> {
    const deleted = await this.unitOfWork(async (repos) => {
      await repos.deliveries.deleteForTarget(caller.tenantId, id);
      return repos.webhooks.delete(caller.tenantId, id);
    });
    if (!deleted) throw webhookNotFound(id);
  }

  /** A new secret takes effect for the next attempt; the old one stops working at once. */
  async rotateSecret(caller: Caller, id: string): Promise<WebhookView> {
    await this.recordOrThrow(caller, id);
    await this.repos.webhooks.update(caller.tenantId, id, { secret: this.sealedSecret(id) }, new Date().toISOString());
    return this.toWebhookView(await this.recordOrThrow(caller, id), true);
  }

  async logs(caller: Caller, id: string, status: LogStatus | undefined, request: PageRequest): Promise<Page<ActivityLogEntry>> {
    await this.recordOrThrow(caller, id);
    return this.repos.logs.list(caller.tenantId, { type: 'WEBHOOK', targetId: id, ...(status === undefined ? {} : { status }) }, request);
  }

  async listForInbox(caller: Caller, inboxId: string, request: PageRequest): Promise<Page<WebhookView>> {
    await this.inboxes.getRecordOrThrow(caller, inboxId);
    const page = await this.repos.webhooks.list(caller.tenantId, request, inboxId);
    return { ...page, data: page.data.map((w) => this.toWebhookView(w)) };
  }

  /** Links an existing webhook, or creates one for `url` and links it; linking again changes nothing. */
  async linkToInbox(caller: Caller, inboxId: string, target: { webhookId: string } | WebhookInput): Promise<InboxHookLink> {
    await this.inboxes.getRecordOrThrow(caller, inboxId);
    const now = new Date().toISOString();
    if ('webhookId' in target) {
      const webhook = await this.recordOrThrow(caller, target.webhookId, 'webhookId');
      const linked = await this.repos.webhooks.link(caller.tenantId, webhook.id, inboxId, now);
      return { webhook: this.toWebhookView(await this.recordOrThrow(caller, webhook.id)), created: false, linked };
    }
    const existing = await this.repos.webhooks.findLinkedByUrl(caller.tenantId, inboxId, target.url);
    if (existing !== undefined) return { webhook: this.toWebhookView(existing), created: false, linked: false };
    const record = await this.newRecord(caller, target);
    await this.unitOfWork(async (repos) => {
      await repos.webhooks.insert(record);
      await repos.webhooks.link(caller.tenantId, record.id, inboxId, now);
    });
    return { webhook: this.toWebhookView({ ...record, inboxIds: [inboxId] }, true), created: true, linked: true };
  }

  /** Removes the link only; a webhook left with no links fires for every email of the tenant. */
  async unlinkFromInbox(caller: Caller, inboxId: string, webhookId: string): Promise<void> {
    await this.inboxes.getRecordOrThrow(caller, inboxId);
    if (!(await this.repos.webhooks.unlink(caller.tenantId, webhookId, inboxId))) {
      throw new NotFoundError('HOOK_NOT_LINKED', `Webhook ${webhookId} is not linked to inbox ${inboxId}`);
    }
  }

  private async newRecord(caller: Caller, input: WebhookInput): Promise<WebhookRecord> {
    await this.limits.assertRoomFor(caller.tenantId, 'webhooks');
    const now = new Date().toISOString();
    const id = randomUUID();
    return {
      id,
      tenantId: caller.tenantId,
      url: await checkedDestination(this.sender, input.url),
      events: validEvents(input.events) ?? ['email.received'],
      description: input.description ?? '',
      active: input.active ?? true,
      secret: this.sealedSecret(id, input.secret),
      inboxIds: [],
      createdAt: now,
      updatedAt: now,
    };
  }

  private async recordOrThrow(caller: Caller, id: string, field?: string): Promise<WebhookRecord> {
    const record = await this.repos.webhooks.get(caller.tenantId, id);
    if (record === undefined) {
      if (field !== undefined) throw new InvalidInputError('WEBHOOK_NOT_FOUND', `${field} is not a webhook of this account`, { field });
      throw webhookNotFound(id);
    }
    return record;
  }
}
