// The settings docs/en/runs.md promises for SQLite, read back from a database the studio opened,
// and the guarantee synchronous=NORMAL relies on: no write is acknowledged before the WAL file
// holding it has been synced (fdatasync) by the studio itself.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "./database.js";
import type { WalDurability } from "./wal-durability.js";

describe("the SQLite file the studio opens", () => {
  let dataDir: string;
  let handle: DatabaseHandle;
  let durability: WalDurability;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), "superstep-db-"));
    handle = openDatabase({ databaseUrl: null, dataDir });
    if (!handle.durability) throw new Error("the embedded database has no group commit");
    durability = handle.durability;
  });
  afterEach(async () => {
    await handle.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const read = async (pragma: string) =>
    Object.values((await sql.raw(`PRAGMA ${pragma}`).execute(handle.db)).rows[0] as object)[0];

  it("uses WAL, synchronous NORMAL (the studio syncs the WAL itself), leaves lock waits to the studio and enforces foreign keys", async () => {
    expect(await read("journal_mode")).toBe("wal");
    // NORMAL: a COMMIT does not sync; the studio syncs the WAL before acknowledging (tests below).
    expect(await read("synchronous")).toBe(1);
    // The dialect waits for a lock itself (STUDIO_DB_BUSY_TIMEOUT_MS) so the event loop never sleeps.
    expect(await read("busy_timeout")).toBe(0);
    expect(await read("foreign_keys")).toBe(1);
  });

  it("acknowledges a write only once a WAL sync that started after its commit has completed", async () => {
    await sql`create table probe (k text primary key)`.execute(handle.db);
    const before = durability.syncs;
    await sql`insert into probe (k) values ('plain')`.execute(handle.db);
    expect(durability.syncs).toBe(before + 1);
    // Nothing was read or written since: everything this process has seen is on disk.
    expect(durability.isDurable(durability.mark)).toBe(true);

    await handle.db.transaction().execute(async (tx) => {
      await sql`insert into probe (k) values ('tx-1')`.execute(tx);
      await sql`insert into probe (k) values ('tx-2')`.execute(tx);
    });
    expect(durability.syncs).toBe(before + 2);
    expect(durability.isDurable(durability.mark)).toBe(true);

    // A run's write through the batcher, answered once on disk (the default).
    await handle.writes.run((tx) => sql`insert into probe (k) values ('batched')`.execute(tx));
    expect(durability.isDurable(durability.mark)).toBe(true);
  });

  it("lets a write answered at its commit be shown only once settled, which waits for its sync", async () => {
    await sql`create table probe (k text primary key)`.execute(handle.db);
    // A checkpoint's write: the run goes on at the commit, before the disk has it.
    await handle.writes.run((tx) => sql`insert into probe (k) values ('checkpoint')`.execute(tx), "run-1", {
      acknowledge: "commit",
    });
    const mark = durability.mark;
    expect(durability.isDurable(mark)).toBe(false);
    // What every answer, published event and call out waits for.
    await handle.settled();
    expect(durability.isDurable(mark)).toBe(true);
  });

  it("syncs on close what nothing waited for", async () => {
    await sql`create table probe (k text primary key)`.execute(handle.db);
    await handle.writes.run((tx) => sql`insert into probe (k) values ('last')`.execute(tx), "run-1", {
      acknowledge: "commit",
    });
    const mark = durability.mark;
    expect(durability.isDurable(mark)).toBe(false);
    await handle.close();
    expect(durability.isDurable(mark)).toBe(true);
    // afterEach closes again: closing twice is harmless.
  });

  it("syncs for someone waiting on this thread, unless runs execute on threads of their own", async () => {
    await sql`create table probe (k text primary key)`.execute(handle.db);
    const answer = async (db: DatabaseHandle, k: string) => {
      await db.writes.run((tx) => sql`insert into probe (k) values (${k})`.execute(tx), "run-1", {
        acknowledge: "commit",
      });
      const mark = db.durability?.mark ?? 0;
      await db.settledNow();
      expect(db.durability?.isDurable(mark)).toBe(true);
    };
    // The first wait opens the WAL file in the thread pool; the next ones sync here.
    await answer(handle, "a");
    await answer(handle, "b");
    expect(durability.inlineSyncs).toBeGreaterThan(0);

    // The request thread of a studio whose runs have threads: every sync goes to the pool.
    const requests = openDatabase({ databaseUrl: null, dataDir }, () => {}, { syncOnThisThread: false });
    try {
      await answer(requests, "c");
      await answer(requests, "d");
      expect(requests.durability?.syncs).toBeGreaterThanOrEqual(2);
      expect(requests.durability?.inlineSyncs).toBe(0);
    } finally {
      await requests.close();
    }
  });
});
