import { sql, type Kysely } from 'kysely';
import { reusableQuery, runReturning } from '../reusable-query.js';
import type { Database } from '../schema.js';

/** Every RCPT TO asks this, the monthly quota check (reusable-query.ts). */
const emailsOfMonth = reusableQuery((db, tenantId: string, month: string) =>
  db.selectFrom('usage_counters').select('emails').where('tenant_id', '=', tenantId).where('month', '=', month),
);

/** Each tenant's month total after a counter update, readable once the update committed. */
export interface MonthTotals {
  byTenant(): ReadonlyMap<string, number>;
}

/** Per-tenant, per-month counters of received emails (docs/access.md). They only ever go up. */
export class UsageRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * One statement for every tenant of a group on both dialects (INSERT … ON CONFLICT, in tenant id
   * order), so concurrent ingests never lose a count; returns each month's total after it, which the
   * quota check at RCPT TO reuses instead of a read, readable once the write committed (D86).
   */
  async addEmails(month: string, counts: ReadonlyMap<string, number>, at: string): Promise<MonthTotals> {
    const rows = [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([tenantId, emails]) => ({ tenant_id: tenantId, month, emails, updated_at: at }));
    const upsert = this.db
      .insertInto('usage_counters')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'month']).doUpdateSet({ emails: sql<number>`usage_counters.emails + excluded.emails`, updated_at: sql<string>`excluded.updated_at` }),
      )
      .returning(['tenant_id', 'emails']);
    const returned = await runReturning(this.db, upsert.compile());
    return { byTenant: () => new Map(returned.rows().map((row) => [row.tenant_id, Number(row.emails)])) };
  }

  async emailsIn(tenantId: string, month: string): Promise<number> {
    const [row] = await emailsOfMonth(this.db, tenantId, month);
    return row === undefined ? 0 : Number(row.emails);
  }
}
