// Opens the database the configuration names (embedded SQLite, or PostgreSQL with DATABASE_URL)
// and applies the migrations kept in models/migrations.
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Kysely, PostgresDialect, sql } from "kysely";
import { Migrator } from "kysely/migration";
import type pg from "pg";
import type { Config } from "../core/config.js";
import type { Database as Schema } from "../models/database.model.js";
import { MIGRATIONS } from "../models/migrations/index.js";
import { NodeSqliteDialect } from "./node-sqlite.dialect.js";
import { preparedShapeName } from "./prepared-query.js";
import { fenceLeases, insertFenced } from "./run.repository.js";
import { FOREGROUND_CHECKPOINT_FRAMES, WalCheckpointer } from "./wal-checkpointer.js";
import { type SyncFile, WalDurability } from "./wal-durability.js";
import { WriteBatcher } from "./write-batcher.js";

export type DatabaseKind = "sqlite" | "postgres";

export interface DatabaseHandle {
  db: Kysely<Schema>;
  kind: DatabaseKind;
  /**
   * Resolves once everything this process has read or written so far is on disk: an answer built
   * from what was read waits for it (PostgreSQL acknowledges only durable commits, so at once).
   */
  settled(): Promise<void>;
  /** `settled`, for an answer someone is waiting for: synced at once rather than in a later turn. */
  settledNow(): Promise<void>;
  /** The writes of runs (events, checkpoints, endings), in shared transactions (write-batcher.ts). */
  writes: WriteBatcher;
  /**
   * What run execution reads and writes through. On SQLite the same connection as `db`; on
   * PostgreSQL a pool of its own, so that answering a request (a trigger's 202, a page of runs)
   * never queues for a connection behind the runs' own queries.
   */
  forRuns: { db: Kysely<Schema>; writes: WriteBatcher };
  /** The embedded database's group commit (null on PostgreSQL, which syncs each commit itself). */
  durability: WalDurability | null;
  close(): Promise<void>;
}

// The embedded database's settings; what each guarantees after a process crash or a power loss is
// in docs/en/runs.md ("The database settings durability relies on"):
// - journal_mode=WAL: readers never block the writer, and a commit appends to one file;
// - synchronous=NORMAL, with the WAL file synced by WalDurability before anything that depends on a
//   write leaves the process (an answer, an event, a call out): each acknowledged write is on disk,
//   as with FULL, but the sync runs in the thread pool and is shared by the commits made meanwhile,
//   instead of one fsync per COMMIT on the event loop;
// - busy_timeout=0: the dialect waits for another connection's lock itself (STUDIO_DB_BUSY_TIMEOUT_MS),
//   without blocking the event loop the way SQLite's own busy wait (a sleep inside the call) does;
// - wal_autocheckpoint: a worker thread checkpoints in the background (WalCheckpointer); the
//   connection's own checkpoint, which blocks the event loop, only when that falls far behind.
const SQLITE_PRAGMAS = `PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 0; PRAGMA foreign_keys = ON; PRAGMA wal_autocheckpoint = ${FOREGROUND_CHECKPOINT_FRAMES};`;

export const SQLITE_FILE = "superstep.db";

// The PostgreSQL driver loads only when DATABASE_URL asks for it (a CommonJS package, so it can be
// required here without making opening the database asynchronous).
const require = createRequire(import.meta.url);

const DEFAULT_BUSY_TIMEOUT_MS = 5000;

// PostgreSQL connections per process: requests and run execution each have their own pool.
export const POSTGRES_REQUEST_POOL_MAX = 5;
export const POSTGRES_RUN_POOL_MAX = 10;

export interface OpenOptions {
  /** How the embedded database's WAL file is flushed (fs.fdatasync; a failing one in tests). */
  syncFile?: SyncFile;
  /**
   * "runs": a handle for run execution alone (the run thread): on PostgreSQL one pool, the run
   * pool's size, serves both `db` and `forRuns`. Default "all": requests and runs.
   */
  serves?: "all" | "runs";
  /**
   * Whether a commit someone waits for (an HTTP answer) syncs the WAL file on this thread
   * (WalDurability.durableNow). Worth it only where this thread's event loop is kept busy by runs;
   * where runs execute on threads of their own, the thread pool's sync answers sooner, and the
   * event loop goes on accepting requests meanwhile (decision 0030). Default true.
   */
  syncOnThisThread?: boolean;
}

/**
 * `dbBusyTimeoutMs` (STUDIO_DB_BUSY_TIMEOUT_MS) bounds how long a statement waits for a lock held
 * by another connection: SQLITE_BUSY on SQLite, PostgreSQL's lock_timeout (a row or table lock
 * held by another session); the statement then fails and the request gets DATABASE_BUSY.
 */
export function openDatabase(
  config: Pick<Config, "databaseUrl" | "dataDir"> & Partial<Pick<Config, "dbBusyTimeoutMs" | "pgPreparedStatements">>,
  onIdleError: (error: Error) => void = () => {},
  options: OpenOptions = {},
): DatabaseHandle {
  const busyTimeoutMs = config.dbBusyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (config.databaseUrl) {
    const { Pool } = require("pg") as typeof pg;
    const connectionString = config.databaseUrl;
    const openPool = (max: number): Kysely<Schema> => {
      // lock_timeout 0 would mean "wait for ever" to PostgreSQL.
      const pool = new Pool({ connectionString, max, lock_timeout: Math.max(1, busyTimeoutMs) });
      // An idle connection dropped by the server (restart, failover) must not crash the process;
      // the pool replaces it on the next query.
      pool.on("error", onIdleError);
      // A connection lost while a query holds it emits `error` on its client, which the pool only
      // listens to while the client is idle: unheard, that event would end the process. The query
      // itself fails with the same error (the request gets DATABASE_UNAVAILABLE).
      pool.on("connect", (client) => {
        client.on("error", () => {});
        if (config.pgPreparedStatements !== false) namePreparedShapes(client);
      });
      return new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
    };
    const runDb = openPool(POSTGRES_RUN_POOL_MAX);
    const db = options.serves === "runs" ? runDb : openPool(POSTGRES_REQUEST_POOL_MAX);
    // One batcher per pool: a run's writes through one pool are in one batch in flight at a time.
    const batching = { batching: "pool", fenceAll: fenceLeases, insertFenced } as const;
    const runWrites = new WriteBatcher(runDb, batching);
    return {
      db,
      kind: "postgres",
      settled: async () => {},
      settledNow: async () => {},
      writes: db === runDb ? runWrites : new WriteBatcher(db, batching),
      forRuns: { db: runDb, writes: runWrites },
      durability: null,
      close: async () => {
        await Promise.all(db === runDb ? [db.destroy()] : [db.destroy(), runDb.destroy()]);
      },
    };
  }
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const file = join(config.dataDir, SQLITE_FILE);
  const sqlite = new DatabaseSync(file);
  sqlite.exec(SQLITE_PRAGMAS);
  const durability = new WalDurability(file, {
    syncFile: options.syncFile,
    ...(options.syncOnThisThread === false ? { syncFileNow: null } : {}),
  });
  const checkpointer = new WalCheckpointer(file);
  const dialect = new NodeSqliteDialect(sqlite, { durability, checkpointer, busyTimeoutMs });
  const db = new Kysely<Schema>({ dialect });
  const writes = new WriteBatcher(db, { batching: "connection", openTransaction: () => dialect.openTransaction() });
  return {
    db,
    kind: "sqlite",
    settled: () => durability.durable(),
    settledNow: () => durability.durableNow(),
    writes,
    forRuns: { db, writes },
    durability,
    close: () => db.destroy(),
  };
}

/**
 * Runs the fixed query shapes of prepared-query.ts as named prepared statements on this
 * connection: PostgreSQL parses and plans each once per connection instead of on every call.
 */
function namePreparedShapes(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (text: unknown, values?: unknown, callback?: unknown) => {
    const name = typeof text === "string" && Array.isArray(values) ? preparedShapeName(text) : undefined;
    if (name === undefined) return callback === undefined ? query(text, values) : query(text, values, callback);
    return query({ name, text, values });
  };
}

export async function pingDatabase(db: Kysely<Schema>): Promise<void> {
  await sql`select 1`.execute(db);
}

export interface MigrationReport {
  applied: string[];
}

/**
 * The database was migrated by a newer version of the product (it holds migrations this one does
 * not know): this version must not run against it, since it would read and write a schema it was
 * not written for.
 */
export class SchemaNewerError extends Error {
  readonly unknownMigrations: string[];

  constructor(unknownMigrations: string[]) {
    super(
      `the database was migrated by a newer version of Superstep (migrations this version does not know: ${unknownMigrations.join(", ")}); run the newer version, or upgrade this one`,
    );
    this.name = "SchemaNewerError";
    this.unknownMigrations = unknownMigrations;
  }
}

/** Throws SchemaNewerError when the database holds migrations this version does not know. */
export async function assertSchemaKnown(db: Kysely<Schema>): Promise<void> {
  let applied: { name: string }[];
  try {
    applied = (await sql<{ name: string }>`select name from schema_migrations`.execute(db)).rows;
  } catch {
    // No migrations table yet (a new database), or no answer: migrating reports the latter.
    return;
  }
  const unknown = applied.map((row) => row.name).filter((name) => !(name in MIGRATIONS));
  if (unknown.length > 0) throw new SchemaNewerError(unknown);
}

export async function migrateToLatest(db: Kysely<Schema>, kind: DatabaseKind = "sqlite"): Promise<MigrationReport> {
  await assertSchemaKnown(db);
  if (kind !== "postgres") return migrate(db);
  // A server starting while another one migrates waits for it however long that takes: the
  // migration lock is exempt from lock_timeout (restored before the connection goes back).
  return db.connection().execute(async (connection) => {
    await sql`set lock_timeout = 0`.execute(connection);
    try {
      return await migrate(connection);
    } finally {
      await sql`reset lock_timeout`.execute(connection);
    }
  });
}

async function migrate(db: Kysely<Schema>): Promise<MigrationReport> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => MIGRATIONS },
    migrationTableName: "schema_migrations",
    migrationLockTableName: "schema_migrations_lock",
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return { applied: (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName) };
}
