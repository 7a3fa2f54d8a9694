import { closeSync, fdatasync, fdatasyncSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Kysely, sql } from "kysely";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import type { Database } from "../models/database.model.js";
import { NodeSqliteDialect } from "./node-sqlite.dialect.js";
import { SYNC_FAILED_CODE, WalDurability } from "./wal-durability.js";

// The embedded database's group commit; PostgreSQL acknowledges durable commits itself.
describe.skipIf(inject("dbKind") !== "sqlite")("WAL durability (group commit)", () => {
  let dir: string;
  let durability: WalDurability;
  let db: Kysely<Database>;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "superstep-wal-"));
    const file = join(dir, "test.db");
    const sqlite = new DatabaseSync(file);
    sqlite.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    durability = new WalDurability(file);
    db = new Kysely<Database>({ dialect: new NodeSqliteDialect(sqlite, { durability }) });
    await sql`create table probe (k integer primary key)`.execute(db);
  });
  afterEach(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const insert = (k: number) => sql`insert into probe (k) values (${k})`.execute(db);

  it("acknowledges a write only once a WAL sync that started after its commit has completed", async () => {
    const before = durability.syncs;
    await insert(1);
    expect(durability.syncs).toBe(before + 1);
    await db.transaction().execute(async (tx) => {
      await sql`insert into probe (k) values (2)`.execute(tx);
      await sql`insert into probe (k) values (3)`.execute(tx);
    });
    expect(durability.syncs).toBe(before + 2);
  });

  it("shares a sync among the commits made while another is in flight", async () => {
    const before = durability.syncs;
    await Promise.all(Array.from({ length: 50 }, (_, i) => insert(100 + i)));
    // The first commit starts a sync; the 49 made while it runs share the next one.
    expect(durability.syncs - before).toBe(2);
  });

  it("lets what was read be shown only once it is on disk", async () => {
    await insert(1);
    const before = durability.syncs;
    // Nothing read or written since the last sync: nothing to wait for.
    await durability.durable();
    expect(durability.syncs).toBe(before);
    // A read may have seen another connection's commit that is not synced yet.
    await sql`select k from probe`.execute(db);
    await durability.durable();
    expect(durability.syncs).toBe(before + 1);
  });

  it("syncs at once on this thread for someone waiting, and leaves it to the thread pool for a while after a slow sync", async () => {
    // A clock the test moves: each read of it by a sync on this thread is noted.
    let clock = 0;
    let slowSync = false;
    const timed = new WalDurability(join(dir, "test.db"), {
      inlineBudgetMs: 5,
      now: () => {
        // The second read of a sync (its end) is 20 ms after the first when the sync is slow.
        clock += slowSync ? 10 : 0.1;
        return clock;
      },
    });
    try {
      await insert(1);
      // The WAL file is not open yet for this instance: the first wait goes to the thread pool.
      await timed.durableNow(timed.touch());
      expect([timed.syncs, timed.inlineSyncs]).toEqual([1, 0]);
      await timed.durableNow(timed.touch());
      expect([timed.syncs, timed.inlineSyncs]).toEqual([2, 1]);
      // Nothing new since: nothing to sync.
      await timed.durableNow();
      expect(timed.syncs).toBe(2);

      slowSync = true;
      await timed.durableNow(timed.touch());
      expect([timed.syncs, timed.inlineSyncs]).toEqual([3, 2]);
      slowSync = false;
      // Within the pause after a slow sync, waits go to the thread pool.
      await timed.durableNow(timed.touch());
      expect([timed.syncs, timed.inlineSyncs]).toEqual([4, 2]);
      // After it, a sync runs here again.
      clock += 1000;
      await timed.durableNow(timed.touch());
      expect([timed.syncs, timed.inlineSyncs]).toEqual([5, 3]);
    } finally {
      await timed.close();
    }
  });

  it("does not wait for the disk when a transaction is rolled back", async () => {
    const before = durability.syncs;
    await expect(
      db.transaction().execute(async (tx) => {
        await sql`insert into probe (k) values (7)`.execute(tx);
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(durability.syncs).toBe(before);
    expect((await sql<{ n: number }>`select count(*) as n from probe`.execute(db)).rows[0]?.n).toBe(0);
  });

  it("after a sync the disk fails, answers every wait with the failure and commits nothing more", async () => {
    await db.destroy();
    // A real failed flush: the kernel refuses to fdatasync /dev/null (EINVAL).
    const unsyncable = openSync("/dev/null", "r");
    let failing = false;
    const file = join(dir, "failing.db");
    const sqlite = new DatabaseSync(file);
    sqlite.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    durability = new WalDurability(file, {
      syncFile: (fd, done) => fdatasync(failing ? unsyncable : fd, done),
    });
    db = new Kysely<Database>({ dialect: new NodeSqliteDialect(sqlite, { durability }) });
    try {
      await sql`create table probe (k integer primary key)`.execute(db);
      await insert(1);
      failing = true;
      // Committed, but never confirmed: its caller is told so.
      await expect(insert(2)).rejects.toMatchObject({ code: SYNC_FAILED_CODE });
      expect(durability.failure).toMatchObject({ code: SYNC_FAILED_CODE, cause: { code: "EINVAL" } });
      failing = false;
      // A flush that would work now changes nothing: no later write is even committed.
      await expect(insert(3)).rejects.toMatchObject({ code: SYNC_FAILED_CODE });
      await expect(
        db.transaction().execute(async (tx) => {
          await sql`insert into probe (k) values (4)`.execute(tx);
        }),
      ).rejects.toMatchObject({ code: SYNC_FAILED_CODE });
      await expect(durability.durable()).rejects.toMatchObject({ code: SYNC_FAILED_CODE });
      const other = new DatabaseSync(file, { readOnly: true });
      expect(other.prepare("select k from probe order by k").all()).toEqual([{ k: 1 }, { k: 2 }]);
      other.close();
    } finally {
      closeSync(unsyncable);
    }
  });

  it("fails a wait for someone waiting when the disk refuses a sync on this thread, and every wait after it", async () => {
    const unsyncable = openSync("/dev/null", "r");
    let failing = false;
    const own = new WalDurability(join(dir, "test.db"), {
      syncFile: fdatasync,
      syncFileNow: (fd) => fdatasyncSync(failing ? unsyncable : fd),
    });
    try {
      await insert(1);
      // The first wait opens the WAL file through the thread pool; the next one syncs here.
      await own.durableNow(own.touch());
      await own.durableNow(own.touch());
      expect(own.inlineSyncs).toBe(1);
      failing = true;
      await expect(own.durableNow(own.touch())).rejects.toMatchObject({ code: SYNC_FAILED_CODE });
      failing = false;
      await expect(own.durableNow(own.touch())).rejects.toMatchObject({ code: SYNC_FAILED_CODE });
      await expect(own.durable()).rejects.toMatchObject({ code: SYNC_FAILED_CODE });
      expect(own.failure).toMatchObject({ cause: { code: "EINVAL" } });
    } finally {
      closeSync(unsyncable);
      await own.close();
    }
  });
});
