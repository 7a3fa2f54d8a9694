import { closeSync, fdatasync, mkdtempSync, openSync, rmSync } from "node:fs";
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
});
