import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { openTestDatabase, type TestDatabase } from "../../test/test-database.js";
import { unnestInsert } from "./unnest-insert.js";
import { type Fence, flushStaged, leaseScopeKey, type StagedInsert, stage, WriteBatcher } from "./write-batcher.js";

const sqlite = inject("dbKind") === "sqlite";

describe("write batcher", () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await openTestDatabase();
    await sql`create table batch_probe (k text primary key, n integer not null)`.execute(database.db);
  });
  afterEach(() => database.drop());

  const keys = async () =>
    (await sql<{ k: string }>`select k from batch_probe order by k`.execute(database.db)).rows.map((r) => r.k);

  it("commits the writes made in one turn together", async () => {
    const { writes } = database;
    const before = writes.transactions;
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        writes.run((tx) => sql`insert into batch_probe (k, n) values (${`k${i}`}, ${i})`.execute(tx)),
      ),
    );
    expect(writes.transactions - before).toBe(1);
    expect(await keys()).toHaveLength(10);
  });

  it("undoes a failing write alone and tells only its caller", async () => {
    const { writes } = database;
    const insert = (k: string) => writes.run((tx) => sql`insert into batch_probe (k, n) values (${k}, 1)`.execute(tx));
    await insert("taken");
    const outcomes = await Promise.allSettled([insert("a"), insert("taken"), insert("b")]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(await keys()).toEqual(["a", "b", "taken"]);
  });

  it("applies one group's writes in order and undoes them together when one fails", async () => {
    const { writes } = database;
    const step = (k: string, n: number) =>
      writes.run(async (tx, scope) => {
        // The scope is the group's for the whole batch: each write sees what the earlier ones left.
        const seen = (scope.get("seen") as string[] | undefined) ?? [];
        scope.set("seen", [...seen, k]);
        await sql`insert into batch_probe (k, n) values (${k}, ${n})`.execute(tx);
        return seen;
      }, "run-1");
    const [first, second] = await Promise.all([step("g1", 1), step("g2", 2), writes.run(async () => "other")]);
    expect([first, second]).toEqual([[], ["g1"]]);
    expect(await keys()).toEqual(["g1", "g2"]);

    const failed = await Promise.allSettled([
      step("g3", 3),
      step("g1", 4),
      writes.run((tx) => sql`insert into batch_probe (k, n) values ('alone', 5)`.execute(tx)),
    ]);
    expect(failed.map((o) => o.status)).toEqual(["rejected", "rejected", "fulfilled"]);
    // g3 went with the failing write of its group; the write of no group committed.
    expect(await keys()).toEqual(["alone", "g1", "g2"]);
  });

  it("rejects every write of a batch whose commit fails, and applies none of them again", async () => {
    const { writes, db } = database;
    await sql`create table batch_parent (k text primary key)`.execute(db);
    await sql`create table batch_child (k text references batch_parent (k) deferrable initially deferred)`.execute(db);
    let calls = 0;
    // Each statement succeeds; the deferred key check fails the COMMIT.
    const orphan = (k: string) =>
      writes.run(async (tx) => {
        calls++;
        await sql`insert into batch_child (k) values (${k})`.execute(tx);
      }, k);
    const outcomes = await Promise.allSettled([orphan("a"), orphan("b")]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
    expect(calls).toBe(2);
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from batch_child`.execute(db);
    expect(Number(rows[0]?.n)).toBe(0);
  });

  it.skipIf(sqlite)(
    "commits another run's writes while a run's batch is in flight, and that run's next writes after it",
    async () => {
      const { writes } = database;
      let openGate = () => {};
      const gate = new Promise<void>((resolve) => {
        openGate = resolve;
      });
      let started = () => {};
      const inFlight = new Promise<void>((resolve) => {
        started = resolve;
      });
      const applied: string[] = [];
      const insert = (k: string) => async (tx: Parameters<Parameters<typeof writes.run>[0]>[0]) => {
        applied.push(k);
        await sql`insert into batch_probe (k, n) values (${k}, 1)`.execute(tx);
      };
      const first = writes.run(async (tx) => {
        started();
        await gate;
        return insert("a1")(tx);
      }, "run-a");
      await inFlight;
      // Asked for in one turn: run-b's write goes at once on another connection, run-a's waits.
      const second = writes.run(insert("a2"), "run-a");
      try {
        await writes.run(insert("b1"), "run-b");
        expect(applied).toEqual(["b1"]);
      } finally {
        openGate();
      }
      await Promise.all([first, second]);
      expect(applied).toEqual(["b1", "a1", "a2"]);
      expect(await keys()).toEqual(["a1", "a2", "b1"]);
    },
  );

  it.skipIf(sqlite)(
    "checks the leases of a batch's runs with one call, and tells each run's writes whether it held",
    async () => {
      const calls: Fence[][] = [];
      const writes = new WriteBatcher(database.db, {
        batching: "pool",
        fenceAll: async (_tx, fences) => {
          calls.push(fences);
          return fences.filter((fence) => fence.runId !== "run-lost");
        },
      });
      const write = (runId: string) =>
        writes.run(async (_tx, scope) => scope.get(leaseScopeKey(runId)) === 3, runId, {
          fence: { runId, leaseGen: 3 },
        });
      const alone = await write("run-alone");
      const held = await Promise.all([write("run-a"), write("run-lost"), write("run-b")]);
      // A run alone in its batch checks its own lease; three at once are checked in one call.
      expect(alone).toBe(false);
      expect(held).toEqual([true, false, true]);
      expect(calls.map((fences) => fences.map((fence) => fence.runId))).toEqual([["run-a", "run-b", "run-lost"]]);
    },
  );

  it.skipIf(sqlite)("applies the runs of a batch in the order of their ids, whatever order they came in", async () => {
    const { writes } = database;
    const applied: string[] = [];
    const before = writes.transactions;
    const write = (k: string) => writes.run(async () => void applied.push(k), k);
    await Promise.all([write("run-c"), write("run-a"), write("run-b")]);
    expect(writes.transactions - before).toBe(1);
    expect(applied).toEqual(["run-a", "run-b", "run-c"]);
  });

  describe("staged rows", () => {
    // A kind of row that records the statements that insert it: one per call.
    const probeKind = (conflict: string, key?: (row: { k: string; n: number }) => string) => {
      const statements: string[][] = [];
      const kind: StagedInsert<{ k: string; n: number }> = {
        insert: async (tx, rows) => {
          statements.push(rows.map((row) => `${row.k}=${row.n}`));
          const values = sql.join(rows.map((row) => sql`(${row.k}, ${row.n})`));
          await sql`insert into batch_probe (k, n) values ${values} ${sql.raw(conflict)}`.execute(tx);
        },
        key,
      };
      return { kind, statements };
    };
    const writeRows = (
      writes: WriteBatcher,
      kind: StagedInsert<{ k: string; n: number }>,
      group: string,
      rows: { k: string; n: number }[],
    ) =>
      writes.run(async (tx) => {
        if (!stage(tx, kind, rows)) await kind.insert(tx, rows);
        return group;
      }, group);

    it.skipIf(sqlite)(
      "inserts the rows a batch's runs staged of one kind in one statement, in their order",
      async () => {
        const { writes } = database;
        const { kind, statements } = probeKind("on conflict (k) do nothing");
        const before = writes.transactions;
        await Promise.all([
          writeRows(writes, kind, "run-b", [{ k: "b1", n: 1 }]),
          writeRows(writes, kind, "run-a", [
            { k: "a1", n: 1 },
            { k: "a2", n: 2 },
          ]),
          writeRows(writes, kind, "run-b", [
            { k: "b2", n: 2 },
            { k: "a1", n: 9 },
          ]),
        ]);
        expect(writes.transactions - before).toBe(1);
        // The runs in the order of their ids, each run's rows in the order it wrote them.
        expect(statements).toEqual([["a1=1", "a2=2", "b1=1", "b2=2", "a1=9"]]);
        const { rows } = await sql<{ k: string; n: number }>`select k, n from batch_probe order by k`.execute(
          database.db,
        );
        // The later row under a taken key was left out, as inserting each in turn would have.
        expect(rows.map((r) => `${r.k}=${r.n}`)).toEqual(["a1=1", "a2=2", "b1=1", "b2=2"]);
      },
    );

    it("keeps the last of rows with one key for an upsert, as applying them in turn would", async () => {
      const { writes } = database;
      const { kind, statements } = probeKind("on conflict (k) do update set n = excluded.n", (row) => row.k);
      await Promise.all([
        writeRows(writes, kind, "run-a", [{ k: "x", n: 1 }]),
        writeRows(writes, kind, "run-a", [
          { k: "x", n: 2 },
          { k: "y", n: 1 },
        ]),
        writeRows(writes, kind, "run-b", [{ k: "x", n: 3 }]),
      ]);
      if (!sqlite) expect(statements).toEqual([["x=3", "y=1"]]);
      const { rows } = await sql<{ k: string; n: number }>`select k, n from batch_probe order by k`.execute(
        database.db,
      );
      expect(rows.map((r) => `${r.k}=${r.n}`)).toEqual(["x=3", "y=1"]);
    });

    it("refuses only the run whose staged rows fail, and commits the others' rows", async () => {
      const { writes } = database;
      await sql`insert into batch_probe (k, n) values ('taken', 0)`.execute(database.db);
      // No conflict rule: a row under a taken key fails the statement that inserts it.
      const { kind, statements } = probeKind("");
      const outcomes = await Promise.allSettled([
        writeRows(writes, kind, "run-a", [{ k: "a1", n: 1 }]),
        writeRows(writes, kind, "run-b", [{ k: "taken", n: 1 }]),
        writeRows(writes, kind, "run-c", [{ k: "c1", n: 1 }]),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect(await keys()).toEqual(["a1", "c1", "taken"]);
      // On PostgreSQL: the staged statement failed, then each run inserted its own rows.
      if (!sqlite) expect(statements).toEqual([["a1=1", "taken=1", "c1=1"], ["a1=1"], ["taken=1"], ["c1=1"]]);
    });

    it.skipIf(sqlite)("inserts the staged rows of several tables in one statement", async () => {
      await sql`create table batch_probe_b (k text primary key, n integer not null)`.execute(database.db);
      // Every statement run through Kysely's executor (BEGIN and COMMIT are not) is counted.
      const statements: string[] = [];
      const counted = database.db.withPlugin({
        transformQuery: ({ node }) => node,
        transformResult: async ({ result, queryId }) => {
          statements.push(queryId.queryId);
          return result;
        },
      });
      const writes = new WriteBatcher(counted, { batching: "pool" });
      const columns = [
        ["k", "text"],
        ["n", "integer"],
      ] as const;
      // The probe tables are not in the studio's schema (`as never`).
      const intoA: StagedInsert<{ k: string; n: number }> = {
        insert: unnestInsert("batch_probe" as never, columns, ""),
      };
      const intoB: StagedInsert<{ k: string; n: number }> = {
        insert: unnestInsert("batch_probe_b" as never, columns, ""),
      };
      await Promise.all([
        writeRows(writes, intoA, "run-a", [{ k: "a1", n: 1 }]),
        writeRows(writes, intoB, "run-a", [{ k: "b1", n: 1 }]),
        writeRows(writes, intoA, "run-b", [{ k: "a2", n: 2 }]),
      ]);
      expect(writes.transactions).toBe(1);
      expect(statements).toHaveLength(1);
      expect(await keys()).toEqual(["a1", "a2"]);
      const b = await sql<{ k: string }>`select k from batch_probe_b`.execute(database.db);
      expect(b.rows.map((r) => r.k)).toEqual(["b1"]);
    });

    it("lets a write that reads the batch's rows insert those staged before it first", async () => {
      const { writes } = database;
      const { kind } = probeKind("on conflict (k) do nothing");
      const [, seen] = await Promise.all([
        writeRows(writes, kind, "run-a", [{ k: "a1", n: 1 }]),
        writes.run(async (tx) => {
          await flushStaged(tx);
          return (await sql<{ k: string }>`select k from batch_probe`.execute(tx)).rows.map((r) => r.k);
        }, "run-a"),
      ]);
      expect(seen).toEqual(["a1"]);
    });
  });

  it.skipIf(!sqlite)("answers a write acknowledged at commit before one that waits for the disk", async () => {
    const { writes } = database;
    const order: string[] = [];
    await Promise.all([
      writes
        .run((tx) => sql`insert into batch_probe (k, n) values ('disk', 1)`.execute(tx))
        .then(() => order.push("disk")),
      writes
        .run((tx) => sql`insert into batch_probe (k, n) values ('commit', 2)`.execute(tx), undefined, {
          acknowledge: "commit",
        })
        .then(() => order.push("commit")),
    ]);
    // Both in one transaction: the one acknowledged at commit does not wait for the WAL sync.
    expect(order).toEqual(["commit", "disk"]);
    expect(await keys()).toEqual(["commit", "disk"]);
  });

  it.skipIf(!sqlite)("commits writes asked for now in one turn together, and tells each before answering", async () => {
    const { writes } = database;
    const before = writes.transactions;
    const told: string[] = [];
    const answered: string[] = [];
    const triggered = (k: string) =>
      writes
        .run((tx) => sql`insert into batch_probe (k, n) values (${k}, 1)`.execute(tx), undefined, {
          now: true,
          committed: () => told.push(k),
        })
        .then(() => {
          expect(told).toContain(k);
          answered.push(k);
        });
    const outcomes = await Promise.allSettled([triggered("t1"), triggered("t2"), triggered("t1"), triggered("t3")]);
    // One commit for the four: the duplicate was undone alone, behind a savepoint of its own.
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect(writes.transactions - before).toBe(1);
    expect(told).toEqual(["t1", "t2", "t3"]);
    expect(answered).toEqual(["t1", "t2", "t3"]);
    expect(await keys()).toEqual(["t1", "t2", "t3"]);
  });

  it.skipIf(sqlite)(
    "applies a write asked for now in a transaction of its own, without waiting for the next batch",
    async () => {
      const { writes } = database;
      const applied: string[] = [];
      const insert = (k: string) => async (tx: Parameters<Parameters<typeof writes.run>[0]>[0]) => {
        applied.push(k);
        await sql`insert into batch_probe (k, n) values (${k}, 1)`.execute(tx);
      };
      const before = writes.transactions;
      let answered = false;
      let toldBeforeAnswer = false;
      await Promise.all([
        writes.run(insert("batched")),
        writes
          .run(insert("now"), undefined, {
            now: true,
            committed: () => {
              toldBeforeAnswer = !answered;
            },
          })
          .then(() => {
            answered = true;
          }),
      ]);
      // Asked for after the batched write, in a transaction of its own (it may first wait for a new
      // connection, so it may be applied before or after the batch).
      expect(applied.sort()).toEqual(["batched", "now"]);
      expect(writes.transactions - before).toBe(2);
      expect(toldBeforeAnswer).toBe(true);
      expect(await keys()).toEqual(["batched", "now"]);
    },
  );

  it.skipIf(!sqlite)("puts a write asked for now on disk at once on this thread, not in a later turn", async () => {
    const { writes } = database;
    const durability = database.durability as NonNullable<typeof database.durability>;
    // The first sync opens the WAL file (in the thread pool); after it, a sync can run here.
    await writes.run((tx) => sql`insert into batch_probe (k, n) values ('first', 1)`.execute(tx));
    const before = { syncs: durability.syncs, inline: durability.inlineSyncs };
    let onDisk = false;
    let committedMark = 0;
    const answered = writes
      .run((tx) => sql`insert into batch_probe (k, n) values ('now', 1)`.execute(tx), undefined, {
        now: true,
        committed: () => {
          committedMark = durability.mark;
        },
      })
      .then(() => {
        onDisk = durability.isDurable(committedMark);
      });
    await answered;
    expect(onDisk).toBe(true);
    expect(durability.inlineSyncs - before.inline).toBe(1);
    expect(durability.syncs - before.syncs).toBe(1);
    // A batched write still waits for the thread pool's sync.
    await writes.run((tx) => sql`insert into batch_probe (k, n) values ('batched', 1)`.execute(tx));
    expect(durability.inlineSyncs - before.inline).toBe(1);
    expect(durability.syncs - before.syncs).toBe(2);
  });

  it.skipIf(sqlite)("runs a lone statement asked for now as a transaction by itself, without BEGIN", async () => {
    const { writes } = database;
    // A transaction that a BEGIN opened started before the statement that reads its start time.
    const startedWithStatement = async (tx: Parameters<Parameters<typeof writes.run>[0]>[0]) =>
      (await sql<{ alone: boolean }>`select now() = statement_timestamp() as alone`.execute(tx)).rows[0]?.alone;
    let told = 0;
    const committed = () => {
      told++;
    };
    const lone = await writes.run(startedWithStatement, undefined, { now: true, statement: true, committed });
    const wrapped = await writes.run(startedWithStatement, undefined, { now: true, committed });
    expect([lone, wrapped, told]).toEqual([true, false, 2]);
  });

  it("tells a write asked for now that it failed, and does not report it committed", async () => {
    const { writes } = database;
    await writes.run((tx) => sql`insert into batch_probe (k, n) values ('taken', 1)`.execute(tx));
    let told = false;
    for (const statement of [false, true])
      await expect(
        writes.run((tx) => sql`insert into batch_probe (k, n) values ('taken', 2)`.execute(tx), undefined, {
          now: true,
          statement,
          committed: () => {
            told = true;
          },
        }),
      ).rejects.toThrow();
    expect(told).toBe(false);
    expect(await keys()).toEqual(["taken"]);
  });
});
