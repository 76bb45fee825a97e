import { sql, type Kysely } from 'kysely';
import type { PlanName } from '../../../core/vocab.js';
import type { Database } from '../schema.js';

export interface TenantRetention {
  tenantId: string;
  plan: PlanName;
  /** null: the plan's period. */
  retentionDaysOverride: number | null;
}

export interface ExpiredEmail {
  id: string;
  environmentId: string;
}

/** Queries for operators' concerns: readiness and retention (docs/operations.md). */
export class OperationsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  async tenantRetentions(): Promise<TenantRetention[]> {
    const rows = await this.db.selectFrom('tenants').select(['id', 'plan', 'retention_days_override']).execute();
    return rows.map((row) => ({ tenantId: row.id, plan: row.plan as PlanName, retentionDaysOverride: row.retention_days_override ?? null }));
  }

  /** Returns whether the tenant exists. */
  async setRetentionOverride(tenantId: string, days: number | null): Promise<boolean> {
    const result = await this.db.updateTable('tenants').set({ retention_days_override: days }).where('id', '=', tenantId).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** The oldest emails of a tenant received before `cutoff` (ISO), at most `limit`. */
  async expiredEmails(tenantId: string, cutoff: string, limit: number): Promise<ExpiredEmail[]> {
    const rows = await this.db
      .selectFrom('emails')
      .select(['id', 'environment_id'])
      .where('tenant_id', '=', tenantId)
      .where('created_at', '<', cutoff)
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ id: row.id, environmentId: row.environment_id }));
  }

  /** Deletes up to `limit` activity log entries written before `cutoff`; returns how many. */
  async deleteLogsBefore(cutoff: string, limit: number): Promise<number> {
    const result = await this.db
      .deleteFrom('activity_logs')
      .where('id', 'in', (eb) => eb.selectFrom('activity_logs').select('id').where('created_at', '<', cutoff).limit(limit))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
