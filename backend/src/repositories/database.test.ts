// The settings docs/en/runs.md promises for SQLite, read back from a database the studio opened.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "./database.js";

describe("the SQLite file the studio opens", () => {
  let dataDir: string | undefined;
  afterEach(() => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("uses WAL, flushes every commit (synchronous FULL), leaves lock waits to the studio and enforces foreign keys", async () => {
    dataDir = mkdtempSync(join(tmpdir(), "superstep-db-"));
    const handle = openDatabase({ databaseUrl: null, dataDir });
    try {
      const read = async (pragma: string) =>
        Object.values((await sql.raw(`PRAGMA ${pragma}`).execute(handle.db)).rows[0] as object)[0];
      expect(await read("journal_mode")).toBe("wal");
      expect(await read("synchronous")).toBe(2); // FULL
      // The dialect waits for a lock itself (STUDIO_DB_BUSY_TIMEOUT_MS) so the event loop never sleeps.
      expect(await read("busy_timeout")).toBe(0);
      expect(await read("foreign_keys")).toBe(1);
    } finally {
      await handle.close();
    }
  });
});
