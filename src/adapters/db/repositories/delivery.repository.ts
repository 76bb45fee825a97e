import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { ChatappIntegrationKind, NotificationLogType, WebhookEvent } from '../../../core/vocab.js';
import { collectCheck, isCollecting, reusableCompile, reusableInsert, reusableQuery } from '../reusable-query.js';
import type { Database } from '../schema.js';
import { parseJson } from '../sql.js';

/** One queued notification of one email to one webhook or chat-app integration. */
export interface DeliveryJob {
  id: string;
  deliveryId: string;
  tenantId: string;
  environmentId: string | null;
  emailId: string;
  targetKind: NotificationLogType;
  targetId: string;
  attemptsMade: number;
  /** null: as many attempts as the retry schedule allows. */
  maxAttempts: number | null;
}

type Row = Database['notification_deliveries'];

/** Inserted in the ingest's write, so collected into its one statement on PostgreSQL (reusable-query.ts). */
const insertDeliveries = reusableInsert('notification_deliveries');

const toJob = (row: Row): DeliveryJob => ({
  id: row.id,
  deliveryId: row.delivery_id,
  tenantId: row.tenant_id,
  environmentId: row.environment_id,
  emailId: row.email_id,
  targetKind: row.target_kind as NotificationLogType,
  targetId: row.target_id,
  attemptsMade: row.attempts_made,
  maxAttempts: row.max_attempts,
});

const iso = (ms: number) => new Date(ms).toISOString();

/** What a new email of a tenant is to be sent to: its active webhooks and chat-app integrations. */
export interface NotificationTargets {
  webhooks: Array<{ id: string; events: WebhookEvent[]; inboxIds: string[] }>;
  integrations: Array<{ id: string; kind: ChatappIntegrationKind; inboxIds: string[] }>;
}

/**
 * Both kinds of target in one statement (a row per webhook and linked inbox, a row per integration):
 * it runs inside every ingest transaction, where each statement is a round trip on PostgreSQL that
 * the transaction, and every message of its group, waits for (docs/decisions.md D68).
 */
const targetRows = (db: Kysely<Database>, webhookTenantId: string, integrationTenantId: string) =>
  db
    .selectFrom('webhooks')
    .leftJoin('webhook_inboxes', 'webhook_inboxes.webhook_id', 'webhooks.id')
    .select([sql<string>`'webhook'`.as('source'), 'webhooks.id as id', 'webhooks.events_json as detail', 'webhook_inboxes.inbox_id as inboxes'])
    .where('webhooks.tenant_id', '=', webhookTenantId)
    .where('webhooks.active', '=', sql.lit(1))
    .unionAll(
      db
        .selectFrom('chatapp_integrations')
        .select([sql<string>`'chatapp'`.as('source'), 'id', 'kind as detail', 'inbox_ids_json as inboxes'])
        .where('tenant_id', '=', integrationTenantId)
        .where('active', '=', sql.lit(1)),
    );

interface TargetRow {
  source: string;
  id: string;
  detail: string;
  inboxes: string | null;
}

const activeTargetRows = reusableQuery(targetRows);

/** PostgreSQL: a digest of the target rows `t` in a fixed order, computed by the database wherever it is compared. */
const TARGETS_VERSION = sql<string>`md5(coalesce(string_agg(t::text, ',' order by t::text), ''))`;

/** PostgreSQL: the target rows and their version, read in one snapshot. */
const versionedTargetRows = reusableQuery((db, webhookTenantId: string, integrationTenantId: string) =>
  db
    .selectFrom(targetRows(db, webhookTenantId, integrationTenantId).as('t'))
    .select([TARGETS_VERSION.as('version'), sql<TargetRow[]>`coalesce(json_agg(t), '[]')`.as('rows')]),
);

/**
 * PostgreSQL: a part of a group write's statement that writes nothing, and fails the statement with
 * `mailroom_outdated` (migration 0030) when the tenant's targets are no longer of `version` (D87).
 */
const targetsUnchanged = reusableCompile(
  (db, tenantId: string, webhookTenantId: string, integrationTenantId: string, version: string, what: string) =>
    db
      .updateTable('tenants')
      .set({ id: sql<string>`id` })
      .where('id', '=', tenantId)
      .where(
        sql<boolean>`case when (${db.selectFrom(targetRows(db, webhookTenantId, integrationTenantId).as('t')).select(TARGETS_VERSION.as('version'))}) = ${version} then false else mailroom_outdated(${what}) end`,
      ),
);

function targetsOf(rows: TargetRow[]): NotificationTargets {
  const webhooks = new Map<string, NotificationTargets['webhooks'][number]>();
  const integrations: NotificationTargets['integrations'] = [];
  for (const row of rows) {
    if (row.source === 'chatapp') {
      integrations.push({ id: row.id, kind: row.detail as ChatappIntegrationKind, inboxIds: parseJson<string[]>(row.inboxes as string) });
      continue;
    }
    const webhook = webhooks.get(row.id) ?? { id: row.id, events: parseJson<WebhookEvent[]>(row.detail), inboxIds: [] };
    if (row.inboxes !== null) webhook.inboxIds.push(row.inboxes);
    webhooks.set(row.id, webhook);
  }
  return { webhooks: [...webhooks.values()], integrations };
}

/** A tenant's targets as read, with the version PostgreSQL can check them against in a later statement (none on SQLite). */
export interface KnownTargets {
  targets: NotificationTargets;
  version?: string;
}

/**
 * The notification outbox as a durable queue. A row is claimable once `available_at` has passed;
 * claiming moves it to now + lease under the worker's name, so a crashed worker's claims come back
 * by themselves. Every outcome is written only while the claim is still ours (same worker, same
 * attempt number), which is what keeps one attempt from being recorded twice.
 */
export class DeliveryRepository {
  private readonly postgres: boolean;

  constructor(private readonly db: Kysely<Database>) {
    this.postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  }

  /**
   * The tenant's active webhooks (with the inboxes each is linked to; none: every inbox) and chat-app
   * integrations, for a group write. Inside PostgreSQL's one statement (`isCollecting`), `known` (what
   * an earlier group read) is used without a read, and a part of the statement checks that the
   * targets are still of its version; without `known` they are read with their version and checked
   * the same way, so a target created or removed between the read and the write is not missed either.
   * If they changed, the statement fails and `outdated` is called: the group is written once more and
   * reads afresh (reusable-query.ts `writeInOneStatement`, D87). Elsewhere (SQLite, a transaction)
   * they are read as they are now.
   */
  async currentTargets(tenantId: string, known: KnownTargets | undefined, outdated: () => void): Promise<KnownTargets> {
    if (!isCollecting(this.db)) return { targets: targetsOf(await activeTargetRows(this.db, tenantId, tenantId)) };
    const current = known?.version === undefined ? await this.versionedTargets(tenantId) : { targets: known.targets, version: known.version };
    // The message names no tenant: a write that fails twice reaches the SMTP client in its 451.
    collectCheck(this.db, targetsUnchanged(this.db, tenantId, tenantId, tenantId, current.version, 'the notification targets of the recipient'), outdated);
    return current;
  }

  private async versionedTargets(tenantId: string): Promise<Required<KnownTargets>> {
    // An aggregate without GROUP BY returns one row, targets or none.
    const [{ rows, version }] = (await versionedTargetRows(this.db, tenantId, tenantId)) as [{ rows: TargetRow[]; version: string }];
    return { targets: targetsOf(rows), version };
  }

  /** Queues jobs; `claimedBy` hands them straight to that worker (a resend runs its attempt at once). */
  async enqueue(jobs: DeliveryJob[], availableAt: number, claimedBy: string | null = null): Promise<void> {
    const createdAt = new Date().toISOString();
    await insertDeliveries(
      this.db,
      jobs.map((job) => ({
        id: job.id,
        delivery_id: job.deliveryId,
        tenant_id: job.tenantId,
        environment_id: job.environmentId,
        email_id: job.emailId,
        target_kind: job.targetKind,
        target_id: job.targetId,
        attempts_made: job.attemptsMade,
        max_attempts: job.maxAttempts,
        available_at: iso(availableAt),
        claimed_by: claimedBy,
        created_at: createdAt,
      })),
    );
  }

  /**
   * Claims up to `limit` due jobs for `worker` until now + leaseMs, round-robin across tenants (every
   * tenant's oldest due job first, then every tenant's second, …) and never more than `perTenant`
   * of one tenant in flight, counting the claims other nodes hold. On PostgreSQL concurrent claimers
   * skip each other's locked rows (FOR UPDATE SKIP LOCKED, which cannot sit in the windowed query
   * itself, so the chosen ids are locked in a second step and rows claimed meanwhile drop out);
   * SQLite runs one writer at a time, so the UPDATE … RETURNING is already atomic there.
   */
  async claim(worker: string, limit: number, now: number, leaseMs: number, perTenant: number): Promise<DeliveryJob[]> {
    const ids = await this.fairlyDue(limit, now, perTenant);
    if (ids.length === 0) return [];
    let due = this.db.selectFrom('notification_deliveries').select('id').where('id', 'in', ids).where('available_at', '<=', iso(now));
    if (this.postgres) due = due.forUpdate().skipLocked();
    const rows = await this.db
      .updateTable('notification_deliveries')
      .set({ claimed_by: worker, available_at: iso(now + leaseMs) })
      .where('id', 'in', due)
      .returningAll()
      .execute();
    return rows.map(toJob);
  }

  private async fairlyDue(limit: number, now: number, perTenant: number): Promise<string[]> {
    const at = iso(now);
    const { rows } = await sql<{ id: string }>`
      WITH due AS (
        SELECT id, tenant_id, available_at, ROW_NUMBER() OVER (PARTITION BY tenant_id ORDER BY available_at, id) AS turn
        FROM notification_deliveries WHERE available_at <= ${at}
      ), busy AS (
        SELECT tenant_id, COUNT(*) AS n FROM notification_deliveries
        WHERE claimed_by IS NOT NULL AND available_at > ${at} GROUP BY tenant_id
      )
      SELECT due.id FROM due LEFT JOIN busy ON busy.tenant_id = due.tenant_id
      WHERE due.turn + COALESCE(busy.n, 0) <= ${perTenant}
      ORDER BY due.turn, due.available_at, due.id
      LIMIT ${limit}`.execute(this.db);
    return rows.map((row) => row.id);
  }

  /** Per tenant, how many of its jobs some node holds a live claim on now. */
  async inFlightByTenant(tenantIds: string[], now: number): Promise<Map<string, number>> {
    if (tenantIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('notification_deliveries')
      .select(['tenant_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('tenant_id', 'in', tenantIds)
      .where('claimed_by', 'is not', null)
      .where('available_at', '>', iso(now))
      .groupBy('tenant_id')
      .execute();
    return new Map(rows.map((row) => [row.tenant_id, Number(row.n)]));
  }

  /** Removes a finished job (delivered, or failed for good); false if the claim was lost meanwhile. */
  async finish(job: DeliveryJob, worker: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('notification_deliveries')
      .where('id', '=', job.id)
      .where('claimed_by', '=', worker)
      .where('attempts_made', '=', job.attemptsMade)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Counts the attempt and puts the job back for its next try at `availableAt`; false if the claim was lost. */
  async retryLater(job: DeliveryJob, worker: string, availableAt: number): Promise<boolean> {
    const result = await this.db
      .updateTable('notification_deliveries')
      .set({ attempts_made: job.attemptsMade + 1, available_at: iso(availableAt), claimed_by: null })
      .where('id', '=', job.id)
      .where('claimed_by', '=', worker)
      .where('attempts_made', '=', job.attemptsMade)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Gives back every job `worker` still holds, due at `now` for any node; returns how many. */
  async release(worker: string, now: number): Promise<number> {
    const result = await this.db.updateTable('notification_deliveries').set({ claimed_by: null, available_at: iso(now) }).where('claimed_by', '=', worker).executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Drops the queued jobs of a deleted webhook or integration. */
  async deleteForTarget(tenantId: string, targetId: string): Promise<void> {
    await this.db.deleteFrom('notification_deliveries').where('tenant_id', '=', tenantId).where('target_id', '=', targetId).execute();
  }

  /** Jobs still queued (due or not); for tests and the bench to wait for a drained queue. */
  async countQueued(): Promise<number> {
    const row = await this.db.selectFrom('notification_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
