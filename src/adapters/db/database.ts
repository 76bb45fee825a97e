import { closeSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, type Migration, type MigrationProvider } from 'kysely';
import { nameStatements } from './pg-named-statements.js';
import { FifoSqliteDialect } from './fifo-sqlite-dialect.js';
import { ReadsOnlyPostgresDialect } from './reads-only-dialect.js';
import type pg from 'pg';
import type { DatabaseConfig } from '../../config/config.js';
import * as m0001 from './migrations/0001-core.js';
import * as m0002 from './migrations/0002-inboxes.js';
import * as m0003 from './migrations/0003-webhooks.js';
import * as m0004 from './migrations/0004-domains.js';
import * as m0007 from './migrations/0007-access-limits.js';
import * as m0008 from './migrations/0008-email-sort-indexes.js';
import * as m0011 from './migrations/0011-users.js';
import * as m0012 from './migrations/0012-custom-storage.js';
import * as m0013 from './migrations/0013-operations.js';
import * as m0015 from './migrations/0015-sealed-secrets.js';
import * as m0019 from './migrations/0019-inbox-aliases.js';
import * as m0021 from './migrations/0021-inbox-names.js';
import * as m0022 from './migrations/0022-spam-check.js';
import * as m0020 from './migrations/0020-email-search-envelope.js';
import * as m0023 from './migrations/0023-account-tokens.js';
import * as m0025 from './migrations/0025-drop-unused-email-index.js';
import * as m0026 from './migrations/0026-ingest-index-entries.js';
import * as m0027 from './migrations/0027-search-vector-from-node.js';
import * as m0028 from './migrations/0028-search-index-body-unsliced.js';
import * as m0029 from './migrations/0029-email-bodies-lz4.js';
import * as m0030 from './migrations/0030-outdated-check.js';
import type { SecretSealer } from '../../core/sealed-secrets.js';
import type { Database } from './schema.js';
import { withStatementCache } from './sqlite-statement-cache.js';
import { startCheckpointer } from './sqlite-checkpointer.js';

export type Dialect = DatabaseConfig['dialect'];

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /**
   * PostgreSQL: the same pool, refusing writes, for the reads of a group write whose writes go out
   * as one statement (reusable-query.ts `writeInOneStatement`, reads-only-dialect.ts).
   */
  readOnly?: Kysely<Database>;
  close(): Promise<void>;
}

/** What a data migration may need beyond the database: the secret box, to seal stored credentials. */
export interface MigrationContext {
  sealer?: SecretSealer;
}

interface DialectMigration {
  up(db: Kysely<unknown>, dialect: Dialect, context: MigrationContext): Promise<void>;
}

/** Listed here, in order, so the build needs no directory scan; each receives the dialect (cf. atproto). */
const MIGRATIONS: Record<string, DialectMigration> = {
  '0001-core': m0001,
  '0002-inboxes': m0002,
  '0003-webhooks': m0003,
  '0004-domains': m0004,
  '0007-access-limits': m0007,
  '0008-email-sort-indexes': m0008,
  '0011-users': m0011,
  '0012-custom-storage': m0012,
  '0013-operations': m0013,
  '0015-sealed-secrets': m0015,
  '0019-inbox-aliases': m0019,
  '0021-inbox-names': m0021,
  '0020-email-search-envelope': m0020,
  '0022-spam-check': m0022,
  '0023-account-tokens': m0023,
  '0025-drop-unused-email-index': m0025,
  '0026-ingest-index-entries': m0026,
  '0027-search-vector-from-node': m0027,
  '0028-search-index-body-unsliced': m0028,
  '0029-email-bodies-lz4': m0029,
  '0030-outdated-check': m0030,
};

// Each driver is required only by the dialect that uses it: a process never needs both (D34).
const require = createRequire(import.meta.url);

/** `onBackgroundError`: failures of the SQLite checkpointer thread (default: a process warning). */
export function createDatabase(config: DatabaseConfig, onBackgroundError: (error: unknown) => void = (error) => process.emitWarning(error as Error)): Db {
  if (config.dialect === 'postgres') {
    const { Pool, types } = require('pg') as typeof pg;
    // Both drivers return 64-bit integers (count(*), bigserial) as strings to avoid precision loss; ours stay far below 2^53.
    types.setTypeParser(types.builtins.INT8, (value: string) => Number(value));
    const pool = new Pool({ connectionString: config.url, max: 10 });
    // An idle connection that dies (server restart, admin termination, or the server closing it while
    // pool.end() is still tearing it down) is dropped by the pool and reported as an 'error' event;
    // unheard, Node treats that event as fatal. The next query simply opens a new connection.
    pool.on('error', () => undefined);
    if (config.preparedStatements !== false) pool.on('connect', (client) => nameStatements(client));
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const readOnly = new Kysely<Database>({ dialect: new ReadsOnlyPostgresDialect({ pool }) });
    return { kysely, dialect: 'postgres', readOnly, close: () => kysely.destroy() };
  }
  mkdirSync(dirname(config.path), { recursive: true, mode: 0o700 });
  // Created 0600 before SQLite opens it; SQLite gives its -wal and -shm files the same mode.
  closeSync(openSync(config.path, 'a', 0o600));
  const Sqlite = require('better-sqlite3') as typeof SqliteDatabase;
  const sqlite = new Sqlite(config.path);
  // WAL lets readers run beside the single writer; synchronous=NORMAL in WAL mode is durable across
  // process crashes (the WAL is fsynced at checkpoints); FULL would fsync every commit.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // A statement inside a transaction keeps the pages it changes in a statement journal, which past
  // 64 KB became a temporary file opened, written and unlinked at every group commit (D31).
  sqlite.pragma('temp_store = MEMORY');
  // Checkpoints (which fsync) run on their own thread, not inside an ingest's COMMIT (sqlite-checkpointer.ts).
  sqlite.pragma('wal_autocheckpoint = 0');
  // better-sqlite3 builds SQLite with a 16 MB page cache per connection, which ingest fills and keeps
  // (~14 MB of peak RSS under bench:smtp). SQLite's own default, 2 MB, still holds the B-trees' inner
  // pages; a page it misses is a pread from the OS page cache (docs/decisions.md D61).
  sqlite.pragma('cache_size = -2000');
  const checkpointer = startCheckpointer(config.path, onBackgroundError);
  const kysely = new Kysely<Database>({ dialect: new FifoSqliteDialect({ database: withStatementCache(sqlite) }) });
  return {
    kysely,
    dialect: 'sqlite',
    async close() {
      await checkpointer.stop();
      await kysely.destroy();
    },
  };
}

export async function migrateToLatestOrThrow(db: Db, context: MigrationContext = {}): Promise<void> {
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, migration] of Object.entries(MIGRATIONS)) {
        out[name] = { up: (k) => migration.up(k, db.dialect, context) };
      }
      return out;
    },
  };
  const migrator = new Migrator({ db: db.kysely, provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error !== undefined || failed !== undefined) {
    const cause = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${cause}`);
  }
}
