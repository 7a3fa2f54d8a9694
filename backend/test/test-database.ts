// A fresh migrated database for repository tests, without the rest of the studio: SQLite in a
// temp dir, or a new database on the test PostgreSQL cluster (per the vitest project).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { inject } from "vitest";
import { type DatabaseHandle, migrateToLatest, openDatabase } from "../src/repositories/database.js";
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

export async function openTestDatabase(): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), "superstep-db-test-"));
  let databaseUrl: string | null = null;
  let drop = async () => {};
  if (inject("dbKind") === "postgres") {
    const adminUrl = inject("pgAdminUrl");
    const name = `superstep_test_${randomBytes(6).toString("hex")}`;
    await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    drop = () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
  const handle = openDatabase({ databaseUrl, dataDir });
  await migrateToLatest(handle.db);
  return {
    ...handle,
    drop: async () => {
      await handle.close();
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
