import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { SearchField, SearchQuery, SearchTerm } from '../../core/search-query.js';
import { indexableWord, quotedLexeme } from '../../core/search-vector.js';
import type { Database } from './schema.js';
import { toFlag } from './sql.js';

/**
 * SQL for a parsed search (core/search-query.ts) over the full-text indexes of migration 0020. Words
 * are letters and digits only (searchWords), so they never need escaping inside either dialect's
 * query syntax; they are still passed as bound parameters.
 */
const FTS5_COLUMNS: Record<SearchField, string | undefined> = { text: undefined, subject: 'subject', from: 'sender', to: 'recipients' };
const TSVECTOR_WEIGHTS: Record<SearchField, string> = { text: '', subject: ':A', from: ':B', to: ':C' };

function fts5Term(term: SearchTerm): string {
  const column = FTS5_COLUMNS[term.field];
  const phrase = `"${term.words.join(' ')}"`;
  return column === undefined ? phrase : `{${column}} : ${phrase}`;
}

/** Ids of the emails an FTS5 expression matches. */
const fts5Matches = (expression: string) =>
  sql`(select k.email_id from email_search_keys k where k.key in (select rowid from emails_fts where emails_fts match ${expression}))`;

/** Whether the email row in scope matches an FTS5 expression: one seek in the index by its key, nothing materialised. */
const fts5MatchesRow = (expression: string) =>
  sql<SqlBool>`exists (select 1 from email_search_keys k join emails_fts f on f.rowid = k.key where k.email_id = emails.id and emails_fts match ${expression})`;

export const wantedExpression = (terms: SearchTerm[]) =>
  terms
    .filter((t) => !t.negated)
    .map(fts5Term)
    .join(' AND ');

/** Below this many FTS matches, reading the matches beats scanning the tenant's emails in list order. */
const FEW_MATCHES = 2000;

/**
 * How a SQLite query reaches the wanted words (the negated ones are always a NOT IN of their matches):
 * - `drive`: the list starts from the matches (few of them; see matchesFewInSqlite);
 * - `walk`: the list walks the tenant's emails in list order and tests each row with one index seek,
 *   which stops as soon as the page is full (most emails match);
 * - `joined`: the caller's query already joins the index and matches the words (countSqliteMatches).
 */
export type SqliteSearchPlan = 'drive' | 'walk' | 'joined';

/**
 * SQLite's planner cannot tell how many rows an FTS5 match yields. A probe of the index itself (well
 * under a millisecond) tells the repository which way to go.
 */
export async function matchesFewInSqlite(db: Kysely<Database>, query: SearchQuery): Promise<boolean> {
  const expression = wantedExpression(query.terms);
  if (expression === '') return false;
  const probe = await sql<{ n: number }>`select count(*) as n from (select rowid from emails_fts where emails_fts match ${expression} limit ${FEW_MATCHES + 1})`.execute(db);
  return Number(probe.rows[0]?.n ?? 0) <= FEW_MATCHES;
}

function sqliteConditions(terms: SearchTerm[], plan: SqliteSearchPlan): RawBuilder<SqlBool>[] {
  const wanted = wantedExpression(terms);
  const conditions = terms.filter((t) => t.negated).map((t) => sql<SqlBool>`emails.id not in ${fts5Matches(fts5Term(t))}`);
  if (wanted === '' || plan === 'joined') return conditions;
  conditions.unshift(plan === 'drive' ? sql<SqlBool>`emails.id in ${fts5Matches(wanted)}` : fts5MatchesRow(wanted));
  return conditions;
}

/** A term as tsquery text, or undefined if none of its words fits in a tsvector (to_tsquery ignored those). */
function tsqueryTerm(term: SearchTerm): string | undefined {
  const words = term.words.filter(indexableWord);
  if (words.length === 0) return undefined;
  const phrase = words.map((w) => `${quotedLexeme(w)}${TSVECTOR_WEIGHTS[term.field]}`).join(' <-> ');
  return term.negated ? `!(${phrase})` : `(${phrase})`;
}

/** The words go in as a tsquery literal, exactly as searchVectorText wrote them into the tsvector (D53). */
function postgresConditions(terms: SearchTerm[]): RawBuilder<SqlBool>[] {
  if (terms.length === 0) return [];
  const query = terms.flatMap((t) => tsqueryTerm(t) ?? []).join(' & ');
  // An empty tsquery, like to_tsquery's of such words, matches nothing.
  if (query === '') return [sql<SqlBool>`false`];
  return [sql<SqlBool>`emails.search_vector @@ ${query}::tsquery`];
}

/** The conditions a search adds to the list's WHERE clause, ANDed by the caller (`plan`: SQLite only). */
export function searchConditions(query: SearchQuery, postgres: boolean, plan: SqliteSearchPlan): RawBuilder<SqlBool>[] {
  const conditions = postgres ? postgresConditions(query.terms) : sqliteConditions(query.terms, plan);
  if (query.read !== undefined) conditions.push(sql<SqlBool>`emails.read = ${toFlag(query.read)}`);
  if (query.hasAttachment !== undefined) conditions.push(sql<SqlBool>`emails.has_attachments = ${toFlag(query.hasAttachment)}`);
  if (query.after !== undefined) conditions.push(sql<SqlBool>`emails.created_at >= ${query.after}`);
  if (query.before !== undefined) conditions.push(sql<SqlBool>`emails.created_at < ${query.before}`);
  return conditions;
}
