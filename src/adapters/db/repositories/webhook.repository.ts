import type { Kysely } from 'kysely';
import { makePage, offsetOf, type Page, type PageRequest } from '../../../core/pagination.js';
import type { WebhookEvent } from '../../../core/vocab.js';
import type { Database } from '../schema.js';
import { fromFlag, parseJson, toFlag } from '../sql.js';

export interface WebhookRecord {
  id: string;
  tenantId: string;
  url: string;
  events: WebhookEvent[];
  description: string;
  active: boolean;
  /** Sealed (core/sealed-secrets.ts); the webhook service opens it. */
  secret: string;
  /** Inboxes the webhook is linked to; empty means every email of the tenant. */
  inboxIds: string[];
  createdAt: string;
  updatedAt: string;
}

export type WebhookChanges = Partial<Pick<WebhookRecord, 'url' | 'events' | 'description' | 'active' | 'secret'>>;

type Row = Database['webhooks'];

const toRecord = (row: Row, inboxIds: string[]): WebhookRecord => ({
  id: row.id,
  tenantId: row.tenant_id,
  url: row.url,
  events: parseJson<WebhookEvent[]>(row.events_json),
  description: row.description,
  active: fromFlag(row.active),
  secret: row.secret,
  inboxIds,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export class WebhookRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(webhook: WebhookRecord): Promise<void> {
    await this.db
      .insertInto('webhooks')
      .values({
        id: webhook.id,
        tenant_id: webhook.tenantId,
        url: webhook.url,
        events_json: JSON.stringify(webhook.events),
        description: webhook.description,
        active: toFlag(webhook.active),
        secret: webhook.secret,
        created_at: webhook.createdAt,
        updated_at: webhook.updatedAt,
      })
      .execute();
  }

  async get(tenantId: string, id: string): Promise<WebhookRecord | undefined> {
    const row = await this.db.selectFrom('webhooks').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    if (row === undefined) return undefined;
    return toRecord(row, (await this.linksOf([id])).get(id) ?? []);
  }

  /** Just what one delivery attempt needs (one indexed read, no inbox links). */
  async getDeliveryTarget(tenantId: string, id: string): Promise<Pick<WebhookRecord, 'url' | 'secret' | 'active'> | undefined> {
    const row = await this.db.selectFrom('webhooks').select(['url', 'secret', 'active']).where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return row && { url: row.url, secret: row.secret, active: fromFlag(row.active) };
  }

  /** Newest first; with `inboxId`, only the webhooks linked to that inbox. */
  async list(tenantId: string, request: PageRequest, inboxId?: string): Promise<Page<WebhookRecord>> {
    let base = this.db.selectFrom('webhooks').where('webhooks.tenant_id', '=', tenantId);
    if (inboxId !== undefined) {
      base = base.where((eb) =>
        eb.exists(eb.selectFrom('webhook_inboxes').select('webhook_inboxes.webhook_id').whereRef('webhook_inboxes.webhook_id', '=', 'webhooks.id').where('webhook_inboxes.inbox_id', '=', inboxId)),
      );
    }
    const [rows, count] = await Promise.all([
      base.selectAll('webhooks').orderBy('webhooks.created_at', 'desc').orderBy('webhooks.id').limit(request.perPage).offset(offsetOf(request)).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    const links = await this.linksOf(rows.map((r) => r.id));
    return makePage(rows.map((row) => toRecord(row, links.get(row.id) ?? [])), Number(count.n), request);
  }

  async update(tenantId: string, id: string, changes: WebhookChanges, updatedAt: string): Promise<boolean> {
    const result = await this.db
      .updateTable('webhooks')
      .set({
        updated_at: updatedAt,
        ...(changes.url === undefined ? {} : { url: changes.url }),
        ...(changes.events === undefined ? {} : { events_json: JSON.stringify(changes.events) }),
        ...(changes.description === undefined ? {} : { description: changes.description }),
        ...(changes.active === undefined ? {} : { active: toFlag(changes.active) }),
        ...(changes.secret === undefined ? {} : { secret: changes.secret }),
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Deletes the webhook; its inbox links cascade. */
  async delete(tenantId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('webhooks').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Links the webhook to the inbox; returns false when the link already existed (idempotent). */
  async link(tenantId: string, webhookId: string, inboxId: string, at: string): Promise<boolean> {
    const result = await this.db
      .insertInto('webhook_inboxes')
      .values({ webhook_id: webhookId, inbox_id: inboxId, tenant_id: tenantId, created_at: at })
      .onConflict((oc) => oc.columns(['webhook_id', 'inbox_id']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async unlink(tenantId: string, webhookId: string, inboxId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('webhook_inboxes')
      .where('tenant_id', '=', tenantId)
      .where('webhook_id', '=', webhookId)
      .where('inbox_id', '=', inboxId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** The tenant's webhook with this url already linked to the inbox, if any (create-and-link idempotency). */
  async findLinkedByUrl(tenantId: string, inboxId: string, url: string): Promise<WebhookRecord | undefined> {
    const row = await this.db
      .selectFrom('webhooks')
      .innerJoin('webhook_inboxes', 'webhook_inboxes.webhook_id', 'webhooks.id')
      .selectAll('webhooks')
      .where('webhooks.tenant_id', '=', tenantId)
      .where('webhook_inboxes.inbox_id', '=', inboxId)
      .where('webhooks.url', '=', url)
      .orderBy('webhooks.created_at')
      .executeTakeFirst();
    return row && this.get(tenantId, row.id);
  }

  private async linksOf(webhookIds: string[]): Promise<Map<string, string[]>> {
    const links = new Map<string, string[]>();
    if (webhookIds.length === 0) return links;
    const rows = await this.db.selectFrom('webhook_inboxes').select(['webhook_id', 'inbox_id']).where('webhook_id', 'in', webhookIds).orderBy('created_at').execute();
    for (const row of rows) links.set(row.webhook_id, [...(links.get(row.webhook_id) ?? []), row.inbox_id]);
    return links;
  }
}
