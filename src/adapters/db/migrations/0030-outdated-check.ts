import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * PostgreSQL: the error a group write's statement raises when a part of it finds that what the write
 * was built from is no longer current (SQLSTATE MR001, reusable-query.ts `OUTDATED`): the ingest's
 * notification targets, used without a read (delivery.repository.ts `currentTargets`, docs/decisions.md
 * D87). SQL has no way to raise an error of its own; a function is the plain way, and being volatile
 * it runs only where a CASE reaches it, never folded into the plan. SQLite needs no such check: its
 * reads are made inside its transaction.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`
    create or replace function mailroom_outdated(what text) returns boolean
    language plpgsql volatile as $$
    begin
      raise exception '% changed while the write was being made', what using errcode = 'MR001';
    end
    $$`.execute(db);
}
