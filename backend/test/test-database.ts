// Fresh databases for tests: SQLite in a temp dir, or a new database on the test PostgreSQL
// cluster, as the vitest project says.
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Kysely } from "kysely";
import pg from "pg";
import { inject } from "vitest";
import type { Database } from "../src/models/database.model.js";
import { type DatabaseHandle, migrateToLatest, openDatabase } from "../src/repositories/database.js";
import type { NewRun } from "../src/repositories/run.repository.js";
import "./provided-context.js";

export interface TestDatabase extends DatabaseHandle {
  /** Closes the connection and removes the database. */
  drop(): Promise<void>;
}

async function adminQuery(adminUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * In the postgres project (or on the server `adminUrl` names), a new empty database and its
 * DATABASE_URL; in the sqlite project, nothing (a studio then uses the embedded database in its
 * data dir).
 */
export async function testDatabaseEnv(
  options: { adminUrl?: string } = {},
): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  // `adminUrl`: a server of the test's own (one it restarts), instead of the project's.
  if (!options.adminUrl && inject("dbKind") !== "postgres") return { env: {}, drop: async () => {} };
  const adminUrl = options.adminUrl ?? inject("pgAdminUrl");
  const name = `superstep_test_${randomBytes(6).toString("hex")}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    drop: () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** A migrated database without the rest of the studio, for repository tests. */
export async function openTestDatabase(options: { pgPreparedStatements?: boolean } = {}): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), "superstep-db-test-"));
  const database = await testDatabaseEnv();
  const handle = openDatabase({ databaseUrl: database.env.DATABASE_URL ?? null, dataDir, ...options });
  await migrateToLatest(handle.db);
  return {
    ...handle,
    drop: async () => {
      await handle.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Inserts an owner account that runs and workflows can belong to; returns its id. */
export async function insertTestOwner(
  db: Kysely<Database>,
  options: { id?: string; email?: string } = {},
): Promise<string> {
  const id = options.id ?? randomUUID();
  const now = new Date().toISOString();
  await db
    .insertInto("users")
    .values({
      id,
      email: options.email ?? "o@example.com",
      name: null,
      password_hash: "x",
      role: "owner",
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

/** A run of a document of nothing, triggered by the API, for `RunRepository.create`. */
export function testRunInput(ownerId: string, changes: Partial<NewRun> = {}): NewRun {
  return {
    ownerId,
    workflowId: null,
    workflowVersion: null,
    contentHash: "h",
    document: "{}",
    trigger: "api",
    mode: "full",
    input: "{}",
    context: "{}",
    idempotencyKey: null,
    callbackUrl: null,
    apiKeyId: null,
    ...changes,
  };
}
