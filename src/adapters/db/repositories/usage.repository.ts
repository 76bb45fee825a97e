import { sql, type Kysely } from 'kysely';
import { reusableQuery } from '../reusable-query.js';
import type { Database } from '../schema.js';

/** Every RCPT TO asks this, the monthly quota check (reusable-query.ts). */
const emailsOfMonth = reusableQuery((db, tenantId: string, month: string) =>
  db.selectFrom('usage_counters').select('emails').where('tenant_id', '=', tenantId).where('month', '=', month),
);

/** Every group commit runs this once per tenant (reusable-query.ts). */
const addToMonth = reusableQuery((db, tenantId: string, month: string, count: number, at: string) =>
  db
    .insertInto('usage_counters')
    .values({ tenant_id: tenantId, month, emails: count, updated_at: at })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'month']).doUpdateSet({ emails: sql<number>`usage_counters.emails + excluded.emails`, updated_at: sql<string>`excluded.updated_at` }),
    )
    .returning('emails'),
);

/** Per-tenant, per-month counters of received emails (docs/access.md). They only ever go up. */
export class UsageRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * One statement on both dialects (INSERT … ON CONFLICT), so concurrent ingests never lose a count;
   * returns the month's total after it, which the quota check at RCPT TO reuses instead of a read.
   */
  async addEmails(tenantId: string, month: string, count: number, at: string): Promise<number> {
    const [row] = await addToMonth(this.db, tenantId, month, count, at);
    if (row === undefined) throw new Error('usage counter upsert returned no row');
    return Number(row.emails);
  }

  async emailsIn(tenantId: string, month: string): Promise<number> {
    const [row] = await emailsOfMonth(this.db, tenantId, month);
    return row === undefined ? 0 : Number(row.emails);
  }
}
