import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * The SMTP envelope's MAIL FROM and HELO, and full-text search over emails (`GET /emails?q=`, docs/search.md), kept by the database itself so it
 * is written in the ingest transaction and backfilled here for existing rows. Both dialects index the
 * same words: runs of letters and digits, lower-cased, whole (no stemming, no diacritic folding), of
 * the subject, sender, recipients and the first BODY_CHARS characters of the text body.
 *
 * SQLite: an FTS5 table keyed by a small integer map (emails has text ids, and the implicit rowid of
 * such a table may change on VACUUM), filled and emptied by triggers. Contentless: the text is
 * already in emails. PostgreSQL: a generated tsvector with a GIN index; the field of each word is its
 * weight (A subject, B sender, C recipients, D body), so `from:` is a weight-restricted lexeme. Since
 * migration 0027 Mailroom writes that vector itself (core/search-vector.ts).
 */
const BODY_CHARS = 100_000;

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  // The SMTP envelope, shown with the email (docs/api.md); null for mail stored before this migration.
  await db.schema.alterTable('emails').addColumn('mail_from', 'text').execute();
  await db.schema.alterTable('emails').addColumn('helo', 'text').execute();
  if (dialect === 'postgres') {
    const words = (column: string) => sql.raw(`to_tsvector('simple', regexp_replace(${column}, '[^[:alnum:]]+', ' ', 'g'))`);
    await sql`alter table emails add column search_vector tsvector generated always as (
      setweight(${words('subject')}, 'A') ||
      setweight(${words('from_address')}, 'B') ||
      setweight(${words('recipients_search')}, 'C') ||
      setweight(${words(`left(coalesce(text_body, ''), ${BODY_CHARS})`)}, 'D')
    ) stored`.execute(db);
    await sql`create index emails_search on emails using gin (search_vector)`.execute(db);
    return;
  }
  await sql`create table email_search_keys (key integer primary key, email_id text not null unique)`.execute(db);
  await sql`create virtual table emails_fts using fts5(subject, sender, recipients, body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')`.execute(db);
  const indexNewRow = sql.raw(
    `insert into emails_fts (rowid, subject, sender, recipients, body)
     values ((select key from email_search_keys where email_id = new.id), new.subject, new.from_address, new.recipients_search, substr(coalesce(new.text_body, ''), 1, ${BODY_CHARS}))`,
  );
  await sql`create trigger emails_search_insert after insert on emails begin
    insert into email_search_keys (email_id) values (new.id);
    ${indexNewRow};
  end`.execute(db);
  await sql`create trigger emails_search_delete after delete on emails begin
    delete from emails_fts where rowid = (select key from email_search_keys where email_id = old.id);
    delete from email_search_keys where email_id = old.id;
  end`.execute(db);
  await sql`insert into email_search_keys (email_id) select id from emails order by created_at`.execute(db);
  await sql`insert into emails_fts (rowid, subject, sender, recipients, body)
    select k.key, e.subject, e.from_address, e.recipients_search, substr(coalesce(e.text_body, ''), 1, ${sql.raw(String(BODY_CHARS))})
    from emails e join email_search_keys k on k.email_id = e.id`.execute(db);
}
