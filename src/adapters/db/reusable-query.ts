import { CompiledQuery, type Compilable, type Insertable, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * A query Kysely builds and compiles once per dialect and then runs with new parameter values.
 * Kysely builds every query anew (an operation-node tree, frozen, then compiled), which for the
 * reads of every RCPT TO cost the main thread about as much as running them (D31). `build` must
 * bind exactly its arguments, in order, in a shape that does not depend on their values: the first
 * compile checks the order, and the shape is the caller's promise.
 */
export function reusableQuery<A extends readonly unknown[], R>(
  build: (db: Kysely<Database>, ...args: A) => Compilable<R>,
): (db: Kysely<Database>, ...args: A) => Promise<R[]> {
  const compile = reusableCompile(build);
  return async (db, ...args) => (await db.executeQuery<R>(compile(db, ...args))).rows;
}

/** reusableQuery's compiled statement with a call's arguments bound, for a caller that sends it another way (`collectCheck`). */
export function reusableCompile<A extends readonly unknown[], R>(
  build: (db: Kysely<Database>, ...args: A) => Compilable<R>,
): (db: Kysely<Database>, ...args: A) => CompiledQuery<R> {
  // Keyed by the dialect's adapter class: SQLite and PostgreSQL compile to different SQL.
  const compiled = new Map<unknown, CompiledQuery<R>>();
  return (db, ...args) => {
    const dialect = db.getExecutor().adapter.constructor;
    let query = compiled.get(dialect);
    if (query === undefined) {
      query = build(db, ...args).compile();
      if (query.parameters.length !== args.length || query.parameters.some((value, i) => value !== args[i])) {
        throw new Error(`reusableQuery: ${query.sql} binds [${query.parameters.join(', ')}], not its arguments in order`);
      }
      compiled.set(dialect, query);
    }
    return withParameters(query, args);
  };
}

/** Statements of more rows than this are built each time: rare, and each would be a long SQL text kept. */
const MOST_REUSED_ROWS = 128;

interface CompiledInsert {
  columns: string[];
  query: CompiledQuery;
}

/**
 * A multi-row INSERT into `table` that Kysely compiles once per dialect, column list and row count,
 * then runs with each call's values. A group commit inserts a few to a few dozen rows of ~40 columns
 * per table, and building, freezing and compiling that tree per batch was most of Kysely's share of the
 * main thread beside SQLite itself (D40). Rows must hold plain values, all with the keys of the first
 * row in the same order, which a repository's row function gives; a row with another shape, an
 * `undefined` value (which Kysely leaves out of the column list) or an SQL expression is inserted
 * through the builder.
 * The SQL is compiled from null placeholders, so no row's values are kept.
 */
export function reusableInsert<T extends keyof Database & string>(table: T): (db: Kysely<Database>, rows: Insertable<Database[T]>[]) => Promise<void> {
  const compiled = new Map<unknown, Map<number, CompiledInsert>>();
  const compile = (db: Kysely<Database>, columns: string[], count: number): CompiledInsert => {
    const placeholder = Object.fromEntries(columns.map((column) => [column, null]));
    const rows = Array.from({ length: count }, () => placeholder) as Insertable<Database[T]>[];
    const query = db.insertInto(table).values(rows).compile() as CompiledQuery;
    return { columns, query: CompiledQuery.raw(query.sql) };
  };
  return async (db, rows) => {
    if (rows.length === 0) return;
    const columns = Object.keys(rows[0] as object);
    const parameters = rows.length <= MOST_REUSED_ROWS ? valuesInOrder(rows as Record<string, unknown>[], columns) : undefined;
    if (parameters === undefined) {
      await runOrCollect(db, db.insertInto(table).values(rows).compile() as CompiledQuery);
      return;
    }
    const dialect = db.getExecutor().adapter.constructor;
    let bySize = compiled.get(dialect);
    if (bySize === undefined) compiled.set(dialect, (bySize = new Map()));
    let insert = bySize.get(rows.length);
    if (insert === undefined || !sameColumns(insert.columns, columns)) {
      insert = compile(db, columns, rows.length);
      bySize.set(rows.length, insert);
    }
    await runOrCollect(db, withParameters(insert.query, parameters));
  };
}

/**
 * A write `writeInOneStatement` collects; `deliver` takes its rows (RETURNING) once the statement ran,
 * `failed` is told when the statement holding it failed.
 */
interface Collected {
  query: CompiledQuery;
  deliver?: (rows: unknown[]) => void;
  failed?: () => void;
}

/** The writes `writeInOneStatement` is collecting on a Kysely handle (its own). */
const collecting = new WeakMap<Kysely<Database>, Collected[]>();

/** Runs a write now, or adds it to the statement `writeInOneStatement` will send. */
export async function runOrCollect(db: Kysely<Database>, query: CompiledQuery): Promise<void> {
  const collected = collecting.get(db);
  if (collected === undefined) await db.executeQuery(query);
  else collected.push({ query });
}

/**
 * Adds to the statement `writeInOneStatement` is collecting on `db` a part that checks what the
 * write was built from is still current, raising `OUTDATED` if not; `outdated` is told whenever that
 * statement fails. A check means nothing outside such a statement, so there it is refused.
 */
export function collectCheck(db: Kysely<Database>, query: CompiledQuery, outdated: () => void): void {
  const collected = collecting.get(db);
  if (collected === undefined) throw new Error('collectCheck: only inside writeInOneStatement');
  collected.push({ query, failed: outdated });
}

/** Whether `db` is a handle whose writes `writeInOneStatement` collects into its one statement. */
export const isCollecting = (db: Kysely<Database>) => collecting.has(db);

/** What a write returned (RETURNING), readable once the write has run: inside a collected statement, after it committed. */
export interface Returned<R> {
  rows(): R[];
}

/**
 * Runs a write whose returned rows its caller reads only after the write committed (in an ingest
 * participant's `afterCommit`), so that `writeInOneStatement` can send it with the others.
 */
export async function runReturning<R>(db: Kysely<Database>, query: CompiledQuery<R>): Promise<Returned<R>> {
  const collected = collecting.get(db);
  if (collected === undefined) {
    const { rows } = await db.executeQuery(query);
    return { rows: () => rows };
  }
  let delivered: R[] | undefined;
  collected.push({ query, deliver: (rows) => (delivered = rows as R[]) });
  return {
    rows() {
      if (delivered === undefined) throw new Error('runReturning: rows read before their statement ran');
      return delivered;
    },
  };
}

/**
 * The SQLSTATE of a part of the statement that found what the write was built from outdated (the
 * function `mailroom_outdated`, migration 0030): the part's `failed` has forgotten what it knew, so
 * the write runs once more and reads afresh.
 */
const OUTDATED = 'MR001';

/**
 * PostgreSQL: runs `work` over a handle on `reads`, which refuses writes (reads-only-dialect.ts), and
 * sends the writes it made (reusable inserts, `runOrCollect`, `runReturning`) to `db` as ONE
 * statement, `with i0 as (insert …), i1 as (insert …) insert …`, committed on its own: no BEGIN, no
 * COMMIT, one round trip where a transaction took six (docs/decisions.md D86). The statement is
 * atomic as a transaction is; foreign keys between its parts hold (checked at its end). `work` reads
 * what was committed before it, never what it writes; a write it makes any other way is refused
 * before it is sent, and the whole call fails, so nothing is ever half written. Writes that need
 * more than one statement (PostgreSQL's parameter limit, a second write with RETURNING) run in one
 * transaction. If a part finds what `work` knew outdated (`OUTDATED`), `work` runs once more (D87).
 */
export async function writeInOneStatement<T>(db: Kysely<Database>, reads: Kysely<Database>, work: (handle: Kysely<Database>) => Promise<T>): Promise<T> {
  try {
    return await writeOnce(db, reads, work);
  } catch (error) {
    if ((error as { code?: unknown }).code !== OUTDATED) throw error;
    return writeOnce(db, reads, work);
  }
}

async function writeOnce<T>(db: Kysely<Database>, reads: Kysely<Database>, work: (handle: Kysely<Database>) => Promise<T>): Promise<T> {
  // A handle of its own, so that only this call's writes join its statement.
  const handle = reads.withoutPlugins();
  const collected: Collected[] = [];
  collecting.set(handle, collected);
  let result: T;
  try {
    result = await work(handle);
  } finally {
    collecting.delete(handle);
  }
  const statements = chained(collected);
  try {
    if (statements.length === 1) await runStatement(db, statements[0] as Collected);
    else if (statements.length > 1) await db.transaction().execute(async (trx) => {
      for (const statement of statements) await runStatement(trx, statement);
    });
  } catch (error) {
    for (const write of collected) write.failed?.();
    throw error;
  }
  return result;
}

async function runStatement(db: Kysely<Database>, statement: Collected): Promise<void> {
  const { rows } = await db.executeQuery(statement.query);
  statement.deliver?.(rows);
}

/** PostgreSQL's limit on one statement's parameters (they are numbered with 16 bits). */
const MAX_PARAMETERS = 65_535;

/**
 * The writes as few `with` statements as the parameter limit allows, each with at most one write
 * whose rows are wanted: that one is the statement's own query (a `with` part returns nothing), the
 * others its parts. Kysely's PostgreSQL compiler writes every value as a `$n` placeholder, so
 * renumbering those is all a query needs to follow another.
 */
function chained(writes: Collected[]): Collected[] {
  const statements: Collected[] = [];
  let parts: string[] = [];
  let parameters: unknown[] = [];
  let returning: { sql: string; deliver: (rows: unknown[]) => void } | undefined;
  const flush = () => {
    const main = returning?.sql ?? parts.pop();
    if (main === undefined) return;
    const sql = parts.length === 0 ? main : `with ${parts.map((part, i) => `i${i} as (${part})`).join(', ')} ${main}`;
    statements.push({ query: CompiledQuery.raw(sql, parameters), deliver: returning?.deliver });
    parts = [];
    parameters = [];
    returning = undefined;
  };
  for (const { query, deliver } of writes) {
    if (parameters.length + query.parameters.length > MAX_PARAMETERS || (deliver !== undefined && returning !== undefined)) flush();
    const offset = parameters.length;
    const sql = offset === 0 ? query.sql : query.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    if (deliver === undefined) parts.push(sql);
    else returning = { sql, deliver };
    for (const value of query.parameters) parameters.push(value);
  }
  flush();
  return statements;
}

/**
 * The compiled query with this run's values, field by field: `{ ...query, parameters }` would give
 * every statement run a hidden class of its own on Node 20 (D66), and Kysely's and the driver's reads
 * of it megamorphic.
 */
function withParameters<R>(query: CompiledQuery<R>, parameters: readonly unknown[]): CompiledQuery<R> {
  return { query: query.query, queryId: query.queryId, sql: query.sql, parameters };
}

/** Every row's values, row by row in `columns` order (Kysely's binding order); undefined if a row has another shape. */
function valuesInOrder(rows: Record<string, unknown>[], columns: string[]): unknown[] | undefined {
  const values: unknown[] = [];
  for (const row of rows) {
    if (Object.keys(row).length !== columns.length) return undefined;
    for (const column of columns) {
      const value = row[column];
      if (value === undefined || isExpression(value)) return undefined;
      values.push(value);
    }
  }
  return values;
}

/** A Kysely expression (or a function building one) compiles into the SQL text, not into a parameter. */
function isExpression(value: unknown): boolean {
  return typeof value === 'function' || (typeof value === 'object' && value !== null && 'toOperationNode' in value);
}

function sameColumns(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((column, i) => column === b[i]);
}
