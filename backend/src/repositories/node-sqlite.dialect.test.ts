// The embedded database's driver under a lock held by another connection and on a full database:
// it waits for the lock without freezing the process, gives up at the busy timeout with SQLITE_BUSY,
// and reports SQLITE_FULL as itself (not as the failed rollback after it).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { sql } from "kysely";
import { afterEach, describe, expect, inject, it } from "vitest";
import { type DatabaseHandle, migrateToLatest, openDatabase, SQLITE_FILE } from "./database.js";
import { storageProblem } from "./database-errors.js";
import { lockReleases } from "./sqlite-busy-wait.js";

const turnOfTheEventLoop = () => new Promise((resolve) => setImmediate(resolve));

describe.runIf(inject("dbKind") === "sqlite")("the embedded database's driver", () => {
  let dataDir: string;
  let handle: DatabaseHandle;
  let other: DatabaseSync | undefined;

  async function open(busyTimeoutMs: number) {
    dataDir = mkdtempSync(join(tmpdir(), "superstep-dialect-"));
    handle = openDatabase({ databaseUrl: null, dataDir, dbBusyTimeoutMs: busyTimeoutMs });
    await migrateToLatest(handle.db);
  }
  afterEach(async () => {
    if (other?.isOpen) other.close();
    other = undefined;
    await handle.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const insertUser = (email: string) =>
    handle.db
      .insertInto("users")
      .values({
        id: email,
        email,
        password_hash: "x",
        role: "member",
        created_at: "2025-01-01T00:00:00Z",
        updated_at: "2025-01-01T00:00:00Z",
      })
      .execute();

  it("waits for another connection's lock while the process goes on, and writes once it is released", async () => {
    await open(60_000);
    other = new DatabaseSync(join(dataDir, SQLITE_FILE));
    other.exec("BEGIN IMMEDIATE");
    let settled = false;
    const write = insertUser("a@example.com").finally(() => {
      settled = true;
    });
    // SQLite's own busy wait would hold the process inside the call until the lock is released.
    for (let turn = 0; turn < 20; turn++) await turnOfTheEventLoop();
    expect(settled).toBe(false);
    // Reads do not wait for a writer (WAL): another connection sees the database meanwhile.
    expect(other.prepare("select count(*) as n from users").get()).toEqual({ n: 0 });

    other.exec("COMMIT");
    await write;
    expect(await handle.db.selectFrom("users").select("email").execute()).toEqual([{ email: "a@example.com" }]);
  });

  it("tells the process's other connections when it lets go of the write lock: after a commit, a rollback or a lone write, not a read", async () => {
    await open(60_000);
    const releases = new Int32Array(lockReleases());
    const moves = async (work: () => Promise<unknown>) => {
      const before = Atomics.load(releases, 0);
      await work();
      return Atomics.load(releases, 0) - before;
    };
    expect(await moves(() => insertUser("a@example.com"))).toBe(1);
    expect(await moves(() => handle.db.selectFrom("users").select("id").execute())).toBe(0);
    const committed = () => handle.db.transaction().execute((tx) => tx.deleteFrom("users").execute());
    expect(await moves(committed)).toBe(1);
    const undone = () =>
      handle.db
        .transaction()
        .execute(async (tx) => {
          await tx.deleteFrom("users").execute();
          throw new Error("undo");
        })
        .catch(() => null);
    expect(await moves(undone)).toBe(1);
  });

  it("gives up with SQLITE_BUSY at the busy timeout, changing nothing, and every write queued behind gives up too", async () => {
    await open(50);
    other = new DatabaseSync(join(dataDir, SQLITE_FILE));
    other.exec("BEGIN IMMEDIATE");
    const writes = await Promise.allSettled([1, 2, 3].map((n) => insertUser(`${n}@example.com`)));
    const transaction = await handle.db
      .transaction()
      .execute((tx) =>
        tx
          .insertInto("users")
          .values({ id: "t", email: "t", password_hash: "x", role: "member", created_at: "", updated_at: "" })
          .execute(),
      )
      .then(
        () => null,
        (error: unknown) => error,
      );
    for (const write of writes) {
      expect(write.status).toBe("rejected");
      expect(storageProblem((write as PromiseRejectedResult).reason)).toBe("busy");
    }
    expect(storageProblem(transaction)).toBe("busy");
    other.exec("ROLLBACK");
    expect(await handle.db.selectFrom("users").select("id").execute()).toEqual([]);
    await insertUser("after@example.com");
  });

  it("reports a full database as SQLITE_FULL, not as the rollback after it, and writes again once there is room", async () => {
    await open(5000);
    // The studio's own connection may grow the file no further (a real SQLITE_FULL from the pager).
    const { page_count } = (await sql<{ page_count: number }>`PRAGMA page_count`.execute(handle.db)).rows[0] as {
      page_count: number;
    };
    await sql.raw(`PRAGMA max_page_count = ${page_count}`).execute(handle.db);
    const big = "x".repeat(64 * 1024);
    const failed = await handle.db
      .transaction()
      .execute(async (tx) => {
        await tx
          .insertInto("users")
          .values({ id: "big", email: "big", password_hash: big, role: "member", created_at: "", updated_at: "" })
          .execute();
      })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(storageProblem(failed)).toBe("full");
    expect((failed as Error).message).toMatch(/full/);

    await sql.raw(`PRAGMA max_page_count = ${page_count + 1000}`).execute(handle.db);
    await handle.db.transaction().execute(async (tx) => {
      await tx
        .insertInto("users")
        .values({ id: "big", email: "big", password_hash: big, role: "member", created_at: "", updated_at: "" })
        .execute();
    });
    expect(await handle.db.selectFrom("users").select("id").execute()).toEqual([{ id: "big" }]);
  });
});
