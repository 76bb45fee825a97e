import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/** The columns that make an email's row large enough for TOAST: a 10 KB message's bodies, headers and search vector. */
const LARGE_EMAIL_COLUMNS = ['text_body', 'html_body', 'headers_json', 'search_vector', 'auth_diagnostics_json'];

/**
 * PostgreSQL: an email's large columns are compressed with lz4 instead of the default pglz, which the
 * database's CPU spends on every row the ingest inserts (docs/decisions.md D67). lz4 needs
 * PostgreSQL 14 or later built with it (Debian's packages and the official images are); elsewhere
 * nothing changes. Only values written from now on are compressed the new way: no table rewrite, and
 * rows already stored read back as before. SQLite does not compress.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  const { rows } = await sql<{ lz4: boolean }>`
    select current_setting('server_version_num')::int >= 140000
      and exists (select 1 from pg_settings where name = 'default_toast_compression' and 'lz4' = any(enumvals)) as lz4`.execute(db);
  if (rows[0]?.lz4 !== true) return;
  await sql.raw(`alter table emails ${LARGE_EMAIL_COLUMNS.map((column) => `alter column ${column} set compression lz4`).join(', ')}`).execute(db);
}
