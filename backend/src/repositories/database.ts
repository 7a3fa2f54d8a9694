// Opens the database the configuration names (embedded SQLite, or PostgreSQL with DATABASE_URL)
// and applies the migrations kept in models/migrations.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Kysely, PostgresDialect, sql } from "kysely";
import { Migrator } from "kysely/migration";
import pg from "pg";
import type { Config } from "../core/config.js";
import type { Database as Schema } from "../models/database.model.js";
import { MIGRATIONS } from "../models/migrations/index.js";
import { NodeSqliteDialect } from "./node-sqlite.dialect.js";
import { FOREGROUND_CHECKPOINT_FRAMES, WalCheckpointer } from "./wal-checkpointer.js";
import { WalDurability } from "./wal-durability.js";
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
  /** The writes of runs (events, checkpoints, endings): shared transactions on SQLite. */
  writes: WriteBatcher;
  /** The embedded database's group commit (null on PostgreSQL, which syncs each commit itself). */
  durability: WalDurability | null;
  close(): Promise<void>;
}

// The embedded database's settings (see docs/en/runs.md, "Durability"):
// - WAL: readers never block the writer, and a commit appends to one file;
// - synchronous=NORMAL with our own WAL sync before any write is acknowledged (WalDurability):
//   what synchronous=FULL guarantees, without blocking the event loop on the disk;
// - busy_timeout: another process (the CLI on the same data dir) holding the write lock is waited
//   for up to 5 s instead of failing at once;
// - wal_autocheckpoint: a worker thread checkpoints in the background (WalCheckpointer); the
//   connection's own checkpoint, which blocks the event loop, only when that falls far behind.
const SQLITE_PRAGMAS = `PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON; PRAGMA wal_autocheckpoint = ${FOREGROUND_CHECKPOINT_FRAMES};`;

export const SQLITE_FILE = "superstep.db";

export function openDatabase(
  config: Pick<Config, "databaseUrl" | "dataDir">,
  onIdleError: (error: Error) => void = () => {},
): DatabaseHandle {
  if (config.databaseUrl) {
    const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 10 });
    // An idle connection dropped by the server (restart, failover) must not crash the process;
    // the pool replaces it on the next query.
    pool.on("error", onIdleError);
    const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      kind: "postgres",
      settled: async () => {},
      writes: new WriteBatcher(db, { batching: false }),
      durability: null,
      close: () => db.destroy(),
    };
  }
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const file = join(config.dataDir, SQLITE_FILE);
  const sqlite = new DatabaseSync(file);
  sqlite.exec(SQLITE_PRAGMAS);
  const durability = new WalDurability(file);
  const checkpointer = new WalCheckpointer(file);
  const dialect = new NodeSqliteDialect(sqlite, { durability, checkpointer });
  const db = new Kysely<Schema>({ dialect });
  return {
    db,
    kind: "sqlite",
    settled: () => durability.durable(),
    writes: new WriteBatcher(db, { batching: true, openTransaction: () => dialect.openTransaction() }),
    durability,
    close: () => db.destroy(),
  };
}

export async function pingDatabase(db: Kysely<Schema>): Promise<void> {
  await sql`select 1`.execute(db);
}

export interface MigrationReport {
  applied: string[];
}

export async function migrateToLatest(db: Kysely<Schema>): Promise<MigrationReport> {
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
