import { PostgresDialect, type CompiledQuery, type DatabaseConnection, type Driver, type QueryCompiler, type QueryResult, type TransactionSettings } from 'kysely';

/** A SELECT that takes no row locks: all a group write may run before its writes go out. */
const READ = /^\s*select\b/i;
const LOCKING = /\bfor\s+(?:update|share|no\s+key\s+update|key\s+share)\b/i;

class UncollectedWriteError extends Error {
  constructor(sql: string) {
    super(`a group write may only read before its statement is sent; this statement was not collected: ${sql.slice(0, 120)}`);
  }
}

function refuseWrites(sql: string): void {
  if (!READ.test(sql) || LOCKING.test(sql)) throw new UncollectedWriteError(sql);
}

/** Runs reads on the inner connection, and refuses anything else before it reaches PostgreSQL. */
class ReadsOnlyConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    refuseWrites(query.sql);
    return this.inner.executeQuery<R>(query);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    refuseWrites(query.sql);
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/** A transaction would hold what the group write's one statement must take itself: refused too. */
class ReadsOnlyDriver implements Driver {
  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new ReadsOnlyConnection(await this.inner.acquireConnection());
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection((connection as ReadsOnlyConnection).inner);
  }

  beginTransaction(_connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    return Promise.reject(new UncollectedWriteError('begin'));
  }

  commitTransaction(): Promise<void> {
    return Promise.reject(new UncollectedWriteError('commit'));
  }

  rollbackTransaction(): Promise<void> {
    return Promise.reject(new UncollectedWriteError('rollback'));
  }

  async savepoint(_connection: DatabaseConnection, name: string, _compile: QueryCompiler['compileQuery']): Promise<void> {
    throw new UncollectedWriteError(`savepoint ${name}`);
  }

  // The pool is the writing handle's: it ends it.
  async destroy(): Promise<void> {}
}

/**
 * PostgreSQL over the same pool as the writing handle, for the reads of a group write whose writes
 * are collected into one statement (reusable-query.ts `writeInOneStatement`): a write (or a row lock)
 * run through it directly would commit on its own, apart from the statement, so it is refused
 * before it is sent and the group fails as a whole.
 */
export class ReadsOnlyPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new ReadsOnlyDriver(super.createDriver());
  }
}
