import type { Compilable, CompiledQuery, Kysely } from 'kysely';
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
    const result = await db.executeQuery<R>({ ...query, parameters: args });
    return result.rows;
  };
}
