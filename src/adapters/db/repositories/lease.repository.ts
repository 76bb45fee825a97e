import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** Named locks with an expiry, held in the database so they work across nodes and survive restarts. */
export class LeaseRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Takes the lease if it is free, expired or already ours; returns whether we hold it now. */
  async tryAcquire(name: string, holder: string, ttlMs: number, now = Date.now()): Promise<boolean> {
    const nowIso = new Date(now).toISOString();
    const expiresAt = new Date(now + ttlMs).toISOString();
    await this.db
      .insertInto('leases')
      .values({ name, holder, expires_at: expiresAt })
      .onConflict((oc) =>
        oc
          .column('name')
          .doUpdateSet({ holder, expires_at: expiresAt })
          .where((eb) => eb.or([eb('leases.expires_at', '<', nowIso), eb('leases.holder', '=', holder)])),
      )
      .execute();
    const row = await this.db.selectFrom('leases').select('holder').where('name', '=', name).executeTakeFirst();
    return row?.holder === holder;
  }

  async release(name: string, holder: string): Promise<void> {
    await this.db.deleteFrom('leases').where('name', '=', name).where('holder', '=', holder).execute();
  }
}
