import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/** As in migration 0020: the search indexes the first this many characters of the text body. */
const BODY_CHARS = 100_000;

/**
 * SQLite: the FTS5 insert trigger of migration 0020 passes the body through
 * `substr(…, 1, BODY_CHARS)`, which walks every character of every body to count them (about a
 * seventh of SQLite's instructions per ingested email, docs/decisions.md D56). A body of at most
 * BODY_CHARS bytes has at most BODY_CHARS characters, and `octet_length` of a text is its stored
 * size, read without a walk: such a body, nearly every one, goes in as it is. The same words are
 * indexed as before. The map key comes from `last_insert_rowid()`, which inside a trigger is the row
 * its own previous insert made, instead of a second lookup of the row just inserted.
 * PostgreSQL: nothing (its search vector is written by Mailroom, migration 0027).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') return;
  await sql`drop trigger emails_search_insert`.execute(db);
  const body = sql.raw(`case when octet_length(new.text_body) <= ${BODY_CHARS} then new.text_body else substr(coalesce(new.text_body, ''), 1, ${BODY_CHARS}) end`);
  await sql`create trigger emails_search_insert after insert on emails begin
    insert into email_search_keys (email_id) values (new.id);
    insert into emails_fts (rowid, subject, sender, recipients, body)
    values (last_insert_rowid(), new.subject, new.from_address, new.recipients_search, ${body});
  end`.execute(db);
}
