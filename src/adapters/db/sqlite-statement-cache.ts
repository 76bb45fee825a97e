import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import type { SqliteDatabase as KyselySqliteDatabase } from 'kysely';

/**
 * Kysely's SQLite driver prepares every query anew, which costs as much as running a small insert.
 * This hands it prepared statements reused by SQL text (the oldest dropped past `limit`). Reuse is
 * safe because the driver runs one query at a time on its single connection.
 */
export function withStatementCache(db: SqliteDatabase, limit = 1000): KyselySqliteDatabase {
  const statements = new Map<string, Statement>();
  return {
    prepare(sql: string): Statement {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = db.prepare(sql);
        if (statements.size >= limit) statements.delete(statements.keys().next().value as string);
        statements.set(sql, statement);
      }
      return statement;
    },
    close: () => db.close(),
  };
}
