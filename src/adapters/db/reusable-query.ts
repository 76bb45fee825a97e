import { CompiledQuery, PostgresAdapter, type Compilable, type Insertable, type Kysely } from 'kysely';
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
  // Keyed by the dialect's adapter class: SQLite and PostgreSQL compile to different SQL.
  const compiled = new Map<unknown, CompiledQuery<R>>();
  return async (db, ...args) => {
    const dialect = db.getExecutor().adapter.constructor;
    let query = compiled.get(dialect);
    if (query === undefined) {
      query = build(db, ...args).compile();
      if (query.parameters.length !== args.length || query.parameters.some((value, i) => value !== args[i])) {
        throw new Error(`reusableQuery: ${query.sql} binds [${query.parameters.join(', ')}], not its arguments in order`);
      }
      compiled.set(dialect, query);
    }
    const result = await db.executeQuery<R>(withParameters(query, args));
    return result.rows;
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
      await run(db, db.insertInto(table).values(rows).compile() as CompiledQuery);
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
    await run(db, withParameters(insert.query, parameters));
  };
}

/** The inserts `combineInserts` is collecting on a Kysely handle (a transaction's). */
const collecting = new WeakMap<Kysely<Database>, CompiledQuery[]>();

/** Runs an insert now, or adds it to the statement `combineInserts` will send. */
async function run(db: Kysely<Database>, query: CompiledQuery): Promise<void> {
  const collected = collecting.get(db);
  if (collected === undefined) await db.executeQuery(query);
  else collected.push(query);
}

/**
 * Runs `work`, whose reusable inserts on `db` go to PostgreSQL as one statement when it is done:
 * `with i0 as (insert …), i1 as (insert …) insert …`. Each statement of a transaction is a round trip
 * that the transaction, and every ingest of its group, waits for; a group's emails, inbox messages
 * and log entries were three (docs/decisions.md D68). Foreign keys between them hold: PostgreSQL
 * checks them at the end of the statement. `work` must not read what it inserts. SQLite, with no
 * round trips, runs each insert as it comes.
 */
export async function combineInserts<T>(db: Kysely<Database>, work: () => Promise<T>): Promise<T> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter) || collecting.has(db)) return work();
  const collected: CompiledQuery[] = [];
  collecting.set(db, collected);
  let result: T;
  try {
    result = await work();
  } finally {
    collecting.delete(db);
  }
  for (const statement of chained(collected)) await db.executeQuery(statement);
  return result;
}

/** PostgreSQL's limit on one statement's parameters (they are numbered with 16 bits). */
const MAX_PARAMETERS = 65_535;

/**
 * The queries as few `with` statements as the parameter limit allows. Kysely's PostgreSQL compiler
 * writes every value as a `$n` placeholder, so renumbering those is all a query needs to follow another.
 */
function chained(queries: CompiledQuery[]): CompiledQuery[] {
  const statements: CompiledQuery[] = [];
  let parts: string[] = [];
  let parameters: unknown[] = [];
  const flush = () => {
    if (parts.length === 0) return;
    const last = parts.pop() as string;
    const sql = parts.length === 0 ? last : `with ${parts.map((part, i) => `i${i} as (${part})`).join(', ')} ${last}`;
    statements.push(CompiledQuery.raw(sql, parameters));
    parts = [];
    parameters = [];
  };
  for (const query of queries) {
    if (parameters.length + query.parameters.length > MAX_PARAMETERS) flush();
    const offset = parameters.length;
    parts.push(offset === 0 ? query.sql : query.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`));
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
