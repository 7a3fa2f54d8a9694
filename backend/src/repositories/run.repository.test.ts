import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { sql } from "kysely";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { insertTestOwner, openTestDatabase, type TestDatabase, testRunInput } from "../../test/test-database.js";
import { DatabaseCheckpointSaver } from "./checkpoint.saver.js";
import { fenceLeases, insertFenced, RunRepository } from "./run.repository.js";
import { WriteBatcher } from "./write-batcher.js";

const event = (seq: number, data = "{}") => ({
  seq,
  type: "node_started",
  node_id: "n",
  superstep: 1,
  ts: new Date().toISOString(),
  data,
});

describe("run repository fencing", () => {
  let database: TestDatabase;
  let runs: RunRepository;
  let ownerId: string;

  beforeAll(async () => {
    database = await openTestDatabase();
    runs = new RunRepository(database.db);
    ownerId = await insertTestOwner(database.db);
  });
  afterAll(() => database.drop());

  const newRun = () => runs.create(testRunInput(ownerId));
  const ending = {
    status: "ok",
    state: "{}",
    output: "{}",
    error: null,
    waiting: null,
    expiresAt: null,
    metrics: null,
    finished: true,
  };

  it("refuses every write of a lease holder that another worker replaced", async () => {
    const { run } = await newRun();
    const first = await runs.lease(run.id, "worker-a", 60_000);
    expect(first?.lease_gen).toBe(1);
    expect(await runs.appendEvents(run.id, 1, [event(1)])).toBe(true);

    // worker-a died: its lease expires and worker-b takes the run over.
    const second = await runs.lease(run.id, "worker-b", 60_000, new Date(Date.now() + 61_000));
    expect(second).toMatchObject({ lease_gen: 2, attempt: 2, lease_owner: "worker-b" });

    expect(await runs.appendEvents(run.id, 1, [event(2)])).toBe(false);
    expect(await runs.end(run.id, 1, ending)).toBe(false);
    const events = await runs.listEvents(run.id, 0, 10);
    expect(events.map((e) => e.seq)).toEqual([1]);
    expect((await runs.findById(run.id))?.status).toBe("running");

    expect(await runs.appendEvents(run.id, 2, [event(2)])).toBe(true);
    expect(await runs.end(run.id, 2, ending)).toBe(true);
    expect((await runs.findById(run.id))?.status).toBe("ok");
  });

  it("checks the leases of several runs written in one batch, and refuses only the run whose lease is gone", async () => {
    const batched = new RunRepository(database.forRuns.db, { writes: database.forRuns.writes });
    const ids = [];
    for (let i = 0; i < 3; i++) {
      const { run } = await newRun();
      await batched.lease(run.id, "worker-a", 60_000);
      ids.push(run.id);
    }
    const [kept, lost, alsoKept] = ids as [string, string, string];
    await batched.lease(lost, "worker-b", 60_000, new Date(Date.now() + 61_000));
    const before = database.forRuns.writes.transactions;
    // Asked for in one turn: one transaction, the three leases checked together on PostgreSQL.
    const written = await Promise.all([
      batched.appendEvents(kept, 1, [event(1)]),
      batched.appendEvents(lost, 1, [event(1)]),
      batched.appendEvents(alsoKept, 1, [event(1)]),
    ]);
    expect(written).toEqual([true, false, true]);
    // (On SQLite the leases' own transactions may still be counted: they answer at commit.)
    if (inject("dbKind") === "postgres") expect(database.forRuns.writes.transactions - before).toBe(1);
    for (const [id, seqs] of [
      [kept, [1]],
      [lost, []],
      [alsoKept, [1]],
    ] as const)
      expect((await batched.listEvents(id, 0, 10)).map((e) => e.seq)).toEqual(seqs);
  });

  it("keeps the first of two events under one seq written in one batch, and the runs' events in order", async () => {
    const batched = new RunRepository(database.forRuns.db, { writes: database.forRuns.writes });
    const ids = [];
    for (let i = 0; i < 2; i++) {
      const { run } = await newRun();
      await batched.lease(run.id, "worker-a", 60_000);
      ids.push(run.id);
    }
    const [a, b] = ids as [string, string];
    const before = database.forRuns.writes.transactions;
    await Promise.all([
      batched.appendEvents(a, 1, [event(1), { ...event(2), data: '{"first":true}' }]),
      batched.appendEvents(b, 1, [event(1)]),
      batched.appendEvents(a, 1, [{ ...event(2), data: '{"first":false}' }, event(3)]),
    ]);
    if (inject("dbKind") === "postgres") expect(database.forRuns.writes.transactions - before).toBe(1);
    const stored = await batched.listEvents(a, 0, 10);
    expect(stored.map((e) => [e.seq, e.data])).toEqual([
      [1, "{}"],
      [2, '{"first":true}'],
      [3, "{}"],
    ]);
    expect((await batched.listEvents(b, 0, 10)).map((e) => e.seq)).toEqual([1]);
  });

  it.runIf(inject("dbKind") === "postgres")(
    "checks many leases in one statement and answers the ones that hold",
    async () => {
      const { run: a } = await newRun();
      const { run: b } = await newRun();
      await runs.lease(a.id, "w", 60_000);
      await runs.lease(b.id, "w", 60_000);
      const held = await database.db.transaction().execute((tx) =>
        fenceLeases(tx, [
          { runId: b.id, leaseGen: 1 },
          { runId: a.id, leaseGen: 7 },
        ]),
      );
      expect(held).toEqual([{ runId: b.id, leaseGen: 1 }]);
    },
  );

  it.runIf(inject("dbKind") === "postgres")(
    "fences a batch's runs with a row lock held until the commit, writing no new version of their rows",
    async () => {
      const { run } = await newRun();
      await runs.lease(run.id, "w", 60_000);
      const version = async () =>
        (await sql<{ xmin: string }>`select xmin::text as xmin from runs where id = ${run.id}`.execute(database.db))
          .rows[0]?.xmin;
      const before = await version();
      let fenced!: () => void;
      const isFenced = new Promise<void>((resolve) => {
        fenced = resolve;
      });
      let commit!: () => void;
      const committing = new Promise<void>((resolve) => {
        commit = resolve;
      });
      const batch = database.db.transaction().execute(async (tx) => {
        const held = await fenceLeases(tx, [{ runId: run.id, leaseGen: 1 }]);
        fenced();
        await committing;
        return held;
      });
      await isFenced;
      // A takeover (the lease's update) waits for the batch's commit; its lock_timeout ends the wait.
      const takeover = database.db.transaction().execute(async (tx) => {
        await sql`set local lock_timeout = '100ms'`.execute(tx);
        await sql`update runs set lease_gen = lease_gen + 1 where id = ${run.id}`.execute(tx);
      });
      await expect(takeover).rejects.toMatchObject({ code: "55P03" });
      commit();
      expect(await batch).toEqual([{ runId: run.id, leaseGen: 1 }]);
      expect(await version()).toBe(before);
    },
  );

  it("gives each new run an id ordered by the time it was created (UUIDv7)", async () => {
    const before = Date.now();
    const { run: first } = await newRun();
    const { run: second } = await newRun();
    const after = Date.now();
    for (const { id } of [first, second]) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      // The first 48 bits are the creation time in milliseconds.
      const created = Number.parseInt(id.replace("-", "").slice(0, 12), 16);
      expect(created).toBeGreaterThanOrEqual(before);
      expect(created).toBeLessThanOrEqual(after);
    }
    expect(first.id.slice(0, 13) <= second.id.slice(0, 13)).toBe(true);
  });

  it("does not lease a run that has ended", async () => {
    const { run } = await newRun();
    await runs.transition(run.id, ["queued"], "cancelled");
    expect(await runs.lease(run.id, "worker-a", 60_000)).toBeUndefined();
  });

  it("leaves a run whose lease is live to its holder and takes it over once the lease expired", async () => {
    const { run } = await newRun();
    const t0 = new Date("2030-01-01T00:00:00.000Z");
    const at = (ms: number) => new Date(t0.getTime() + ms);
    const first = await runs.lease(run.id, "worker-a", 10_000, t0);
    expect(first).toMatchObject({ lease_gen: 1, lease_owner: "worker-a", status: "running" });
    expect(await runs.lease(run.id, "worker-b", 10_000, at(9_999))).toBeUndefined();
    // Renewed while it runs: still live past the first expiry.
    expect(await runs.renewLease(run.id, 1, 10_000, at(5_000))).toBe(true);
    expect(await runs.lease(run.id, "worker-b", 10_000, at(14_999))).toBeUndefined();
    const takeable = async (ms: number) => (await runs.findTakeable(at(ms).toISOString())).map((r) => r.id);
    expect(await takeable(14_999)).not.toContain(run.id);
    expect(await takeable(15_001)).toContain(run.id);
    const second = await runs.lease(run.id, "worker-b", 10_000, at(15_001));
    expect(second).toMatchObject({ lease_gen: 2, attempt: 2, lease_owner: "worker-b" });
    // The old holder's renewal is refused: it has lost the run.
    expect(await runs.renewLease(run.id, 1, 10_000, at(15_002))).toBe(false);
    expect(await runs.renewLease(run.id, 2, 10_000, at(15_002))).toBe(true);
  });

  it("finds queued runs for a restart, and for the sweeper only those left queued for a while", async () => {
    const { run } = await newRun();
    const now = new Date();
    const ids = async (options: { queuedBefore?: string }) =>
      (await runs.findTakeable(now.toISOString(), options)).map((r) => r.id);
    expect(await ids({})).toContain(run.id);
    expect(await ids({ queuedBefore: new Date(now.getTime() - 60_000).toISOString() })).not.toContain(run.id);
    expect(await ids({ queuedBefore: new Date(now.getTime() + 60_000).toISOString() })).toContain(run.id);
    await runs.transition(run.id, ["queued"], "cancelled");
    expect(await ids({})).not.toContain(run.id);
  });

  it("starts a turn's clock when a queued run is taken, and keeps it when a crashed turn is taken over", async () => {
    const { run } = await newRun();
    const t0 = new Date("2030-02-01T00:00:00.000Z");
    const at = (ms: number) => new Date(t0.getTime() + ms);
    const first = await runs.lease(run.id, "worker-a", 1_000, t0);
    expect(first?.turn_started_at).toBe(t0.toISOString());
    // worker-a crashed; worker-b goes on with the same turn.
    const takeover = await runs.lease(run.id, "worker-b", 1_000, at(5_000));
    expect(takeover?.turn_started_at).toBe(t0.toISOString());
    // The turn ends waiting for a person; the answer, days later, starts a new turn.
    expect(await runs.end(run.id, 2, { ...ending, status: "waiting", finished: false })).toBe(true);
    await runs.transition(run.id, ["waiting"], "queued", { pendingResume: "{}" });
    const resumed = await runs.lease(run.id, "worker-c", 1_000, at(3 * 24 * 3600_000));
    expect(resumed?.turn_started_at).toBe(at(3 * 24 * 3600_000).toISOString());
    expect(resumed?.started_at).toBe(t0.toISOString());
  });
});

describe.runIf(inject("dbKind") === "postgres")("a batch of rows that runs only stage, on PostgreSQL", () => {
  let database: TestDatabase;
  let ownerId: string;
  let statements: string[];
  let transactions: number;
  let writes: WriteBatcher;
  let runs: RunRepository;

  beforeAll(async () => {
    database = await openTestDatabase();
    ownerId = await insertTestOwner(database.db);
  });
  afterAll(() => database.drop());
  beforeEach(() => {
    statements = [];
    transactions = 0;
    // Every statement run through Kysely's executor is recorded, and every transaction begun.
    const recorded = database.forRuns.db.withPlugin({
      transformQuery: ({ node }) => node,
      transformResult: async ({ result, queryId }) => {
        statements.push(queryId.queryId);
        return result;
      },
    });
    const counted = new Proxy(recorded, {
      get(target, name) {
        if (name === "transaction") transactions++;
        const value = Reflect.get(target, name);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    writes = new WriteBatcher(counted, { batching: "pool", fenceAll: fenceLeases, insertFenced });
    runs = new RunRepository(counted, { writes });
  });

  const leasedRun = async () => {
    const { run } = await runs.create(testRunInput(ownerId));
    await runs.lease(run.id, "worker-a", 60_000);
    return run.id;
  };
  const meta = { source: "loop" as const, step: 0, parents: {} };
  const saverOf = (runId: string) =>
    new DatabaseCheckpointSaver(database.forRuns.db, { fence: { runId, leaseGen: 1 }, writes, acknowledge: "commit" });
  const superstep = async (runId: string, data = "{}") => {
    const saver = saverOf(runId);
    const config = { configurable: { thread_id: runId, checkpoint_ns: "" } };
    const [stored] = await Promise.all([
      saver.put(config, { ...emptyCheckpoint(), id: uuid6(0) }, meta, {}),
      runs.appendEvents(runId, 1, [event(1, data)]),
    ]);
    return stored;
  };
  const rowsOf = async (runId: string) => ({
    checkpoints: (
      await sql<{ n: number }>`select count(*)::int as n from checkpoints where thread_id = ${runId}`.execute(
        database.db,
      )
    ).rows[0]?.n,
    events: (await runs.listEvents(runId, 0, 10)).map((e) => e.seq),
  });

  it("inserts the rows of several runs in one statement that checks their leases, with no transaction", async () => {
    const [a, b] = [await leasedRun(), await leasedRun()];
    statements = [];
    transactions = 0;
    const before = writes.transactions;
    await Promise.all([superstep(a), superstep(b)]);
    expect(statements).toHaveLength(1);
    expect(transactions).toBe(0);
    expect(writes.transactions - before).toBe(1);
    expect(await rowsOf(a)).toEqual({ checkpoints: 1, events: [1] });
    expect(await rowsOf(b)).toEqual({ checkpoints: 1, events: [1] });
  });

  it("inserts none of the rows when one lease is gone, then commits the others' and refuses that run's writes", async () => {
    const [kept, lost] = [await leasedRun(), await leasedRun()];
    await runs.lease(lost, "worker-b", 60_000, new Date(Date.now() + 61_000));
    const saver = saverOf(lost);
    const config = { configurable: { thread_id: lost, checkpoint_ns: "" } };
    const outcomes = await Promise.allSettled([
      superstep(kept),
      saver.put(config, { ...emptyCheckpoint(), id: uuid6(0) }, meta, {}),
      runs.appendEvents(lost, 1, [event(1)]),
    ]);
    // The run's writes of one batch stand or fall together: its checkpoint found the lease lost.
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "rejected"]);
    expect(outcomes[1]).toMatchObject({ reason: { code: "LEASE_LOST" } });
    expect(outcomes[2]).toMatchObject({ reason: { code: "LEASE_LOST" } });
    expect(await rowsOf(kept)).toEqual({ checkpoints: 1, events: [1] });
    expect(await rowsOf(lost)).toEqual({ checkpoints: 0, events: [] });
  });

  it("refuses only the run whose staged row the database refuses, and commits the others' rows", async () => {
    const [good, bad] = [await leasedRun(), await leasedRun()];
    // PostgreSQL's text takes no NUL: the one statement fails, then each run is applied alone.
    const outcomes = await Promise.allSettled([superstep(good), superstep(bad, '{"x":"\u0000"}')]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected"]);
    expect(await rowsOf(good)).toEqual({ checkpoints: 1, events: [1] });
    expect(await rowsOf(bad)).toEqual({ checkpoints: 0, events: [] });
  });

  it("applies a write that said it only stages but runs a statement once, in a transaction", async () => {
    const runId = await leasedRun();
    await sql`create table if not exists stage_probe (k text primary key)`.execute(database.db);
    statements = [];
    transactions = 0;
    let tries = 0;
    const [, inserted] = await Promise.all([
      superstep(runId),
      writes.run(
        async (tx) => {
          tries++;
          return (await sql`insert into stage_probe (k) values (${runId})`.execute(tx)).numAffectedRows;
        },
        runId,
        { stages: true, fence: { runId, leaseGen: 1 } },
      ),
    ]);
    expect(inserted).toBe(1n);
    // Tried without a database first (refused before it reached one), then applied for real.
    expect(tries).toBe(2);
    expect(transactions).toBe(1);
    const probe = await sql<{ k: string }>`select k from stage_probe`.execute(database.db);
    expect(probe.rows.map((r) => r.k)).toEqual([runId]);
    expect(await rowsOf(runId)).toEqual({ checkpoints: 1, events: [1] });
  });
});
