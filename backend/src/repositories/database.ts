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

export type DatabaseKind = "sqlite" | "postgres";

export interface DatabaseHandle {
  db: Kysely<Schema>;
  kind: DatabaseKind;
  close(): Promise<void>;
}

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
    return { db, kind: "postgres", close: () => db.destroy() };
  }
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const sqlite = new DatabaseSync(join(config.dataDir, SQLITE_FILE));
  // What each setting guarantees after a crash or a power loss: docs/en/runs.md.
  sqlite.exec(
    "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;",
  );
  const db = new Kysely<Schema>({ dialect: new NodeSqliteDialect(sqlite) });
  return { db, kind: "sqlite", close: () => db.destroy() };
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
