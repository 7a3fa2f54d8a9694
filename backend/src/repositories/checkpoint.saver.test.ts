import { randomUUID } from "node:crypto";
import {
  Annotation,
  Command,
  END,
  INTERRUPT,
  interrupt,
  isInterrupted,
  Send,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { emptyCheckpoint, type PendingWrite, TASKS, uuid6 } from "@langchain/langgraph-checkpoint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertTestOwner, openTestDatabase, type TestDatabase } from "../../test/test-database.js";
import { DatabaseCheckpointSaver } from "./checkpoint.saver.js";
import { MARKER } from "./plain-json.serde.js";

let database: TestDatabase;

beforeAll(async () => {
  database = await openTestDatabase();
});

afterAll(async () => {
  await database.drop();
});

function threadConfig(threadId: string) {
  return { configurable: { thread_id: threadId } };
}

async function threadRows(threadId: string) {
  const checkpoints = await database.db
    .selectFrom("checkpoints")
    .selectAll()
    .where("thread_id", "=", threadId)
    .orderBy("checkpoint_id")
    .execute();
  const writes = await database.db
    .selectFrom("checkpoint_writes")
    .selectAll()
    .where("thread_id", "=", threadId)
    .orderBy("checkpoint_id")
    .orderBy("task_id")
    .orderBy("idx")
    .execute();
  return { checkpoints, writes };
}

// Two writes of one task, a Send of another, and what a checkpoint holds pending after all three:
// regular writes keep the first value under their (task, index), special ones the last.
const FIRST_WRITES: PendingWrite[] = [
  ["a", 1],
  ["__error__", { message: "first" }],
  ["constructor", 3],
];
const SECOND_WRITES: PendingWrite[] = [
  ["a", 2],
  ["__error__", { message: "second" }],
];
const SEND_WRITES: PendingWrite[] = [[TASKS, { lg_name: "Send", node: "n", args: { x: 1 } }]];
const PENDING_AFTER_ALL = [
  ["t0", TASKS, { lg_name: "Send", node: "n", args: { x: 1 } }],
  ["t1", "__error__", { message: "second" }],
  ["t1", "a", 1],
  ["t1", "constructor", 3],
];

const LC_ENVELOPE = {
  lc: 1,
  type: "constructor",
  id: ["langchain_core", "messages", "HumanMessage"],
  kwargs: { content: "hi" },
};

describe("DatabaseCheckpointSaver with a real graph", () => {
  it("gives state values back as the same plain objects, never revived", async () => {
    const State = Annotation.Root({
      value: Annotation<unknown>(),
      marked: Annotation<unknown>(),
      seen: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    const build = (saver: DatabaseCheckpointSaver) =>
      new StateGraph(State)
        .addNode("inspect", (state) => ({
          seen: [Object.getPrototypeOf(state.value) === Object.prototype ? "plain" : "revived"],
        }))
        .addEdge(START, "inspect")
        .addEdge("inspect", END)
        .compile({ checkpointer: saver });
    const marked = { [MARKER]: "bytes", base64: "AAAA", inner: { [MARKER]: "undefined" } };
    const config = threadConfig(randomUUID());

    await build(new DatabaseCheckpointSaver(database.db)).invoke({ value: LC_ENVELOPE, marked }, config);
    // A new saver (a restarted process) reads the thread: state, raw tuple, and a node that sees it.
    const graphB = build(new DatabaseCheckpointSaver(database.db));
    const state = await graphB.getState(config);
    expect(state.values.value).toStrictEqual(LC_ENVELOPE);
    expect(Object.getPrototypeOf(state.values.value)).toBe(Object.prototype);
    expect(state.values.marked).toStrictEqual(marked);

    const tuple = await new DatabaseCheckpointSaver(database.db).getTuple(config);
    const values = tuple?.checkpoint.channel_values as { value: unknown; marked: unknown };
    expect(values.value).toStrictEqual(LC_ENVELOPE);
    expect(Object.getPrototypeOf(values.value)).toBe(Object.prototype);
    expect(values.marked).toStrictEqual(marked);

    const rerun = await graphB.invoke({ marked }, config);
    expect(rerun.seen).toEqual(["plain", "plain"]);
    expect(rerun.value).toStrictEqual(LC_ENVELOPE);
  });

  it("resumes an interrupt inside a Send fan-out with a new saver instance", async () => {
    const calls: Record<string, number> = {};
    const State = Annotation.Root({
      items: Annotation<string[]>(),
      results: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    const build = (saver: DatabaseCheckpointSaver) =>
      new StateGraph(State)
        .addNode("worker", (input: { item: string }) => {
          calls[input.item] = (calls[input.item] ?? 0) + 1;
          if (input.item === "b") {
            const answer = interrupt({ question: `approve ${input.item}?`, payload: LC_ENVELOPE }) as string;
            return { results: [`b:${answer}`] };
          }
          return { results: [input.item] };
        })
        .addConditionalEdges(START, (state) => state.items.map((item) => new Send("worker", { item })), ["worker"])
        .addEdge("worker", END)
        .compile({ checkpointer: saver });
    const config = threadConfig(randomUUID());

    const first = await build(new DatabaseCheckpointSaver(database.db)).invoke({ items: ["a", "b", "c"] }, config);
    expect(isInterrupted(first)).toBe(true);
    const asked = isInterrupted(first) ? first[INTERRUPT] : [];
    expect(asked).toHaveLength(1);
    expect(asked[0]?.value).toEqual({ question: "approve b?", payload: LC_ENVELOPE });

    const graphB = build(new DatabaseCheckpointSaver(database.db));
    const waiting = await graphB.getState(config);
    expect(waiting.next).toEqual(["worker"]);
    const interrupts = waiting.tasks.flatMap((task) => task.interrupts);
    expect(interrupts).toHaveLength(1);
    const reloaded = interrupts[0]?.value as { payload: unknown } | undefined;
    expect(Object.getPrototypeOf(reloaded?.payload)).toBe(Object.prototype);

    const done = await graphB.invoke(new Command({ resume: "yes" }), config);
    expect([...done.results].sort()).toEqual(["a", "b:yes", "c"]);
    // a and c finished before the interrupt: their stored writes were replayed, not re-run.
    expect(calls).toEqual({ a: 1, b: 2, c: 1 });
    expect((await graphB.getState(config)).next).toEqual([]);
  });
});

describe("DatabaseCheckpointSaver fencing", () => {
  // The studio has one owner: the runs of these tests share it.
  let ownerId: Promise<string> | undefined;
  async function insertRun(runId: string, leaseGen: number) {
    const now = new Date().toISOString();
    ownerId ??= (async () => {
      const id = randomUUID();
      await insertTestOwner(database.db, { id, email: `${id}@example.com` });
      return id;
    })();
    const userId = await ownerId;
    await database.db
      .insertInto("runs")
      .values({
        id: runId,
        owner_id: userId,
        content_hash: "hash",
        document: "{}",
        trigger: "api",
        mode: "full",
        status: "running",
        input: "{}",
        context: "{}",
        lease_gen: leaseGen,
        attempt: 1,
        next_seq: 1,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }

  const meta = { source: "loop" as const, step: 0, parents: {} };

  it("writes only while runs.lease_gen still equals the fence", async () => {
    const runId = randomUUID();
    await insertRun(runId, 1);
    const saver1 = new DatabaseCheckpointSaver(database.db, { fence: { runId, leaseGen: 1 } });
    const stored = await saver1.put(threadConfig(runId), { ...emptyCheckpoint(), id: uuid6(0) }, meta, {});
    await saver1.putWrites(stored, [["x", 1]], "task-1");
    const before = await threadRows(runId);
    expect(before.checkpoints).toHaveLength(1);
    expect(before.writes).toHaveLength(1);

    await database.db.updateTable("runs").set({ lease_gen: 2 }).where("id", "=", runId).execute();
    const lost = { code: "LEASE_LOST", details: { run_id: runId, lease_gen: 1 } };
    await expect(saver1.put(stored, { ...emptyCheckpoint(), id: uuid6(0) }, meta, {})).rejects.toMatchObject(lost);
    await expect(saver1.putWrites(stored, [["y", 2]], "task-2")).rejects.toMatchObject(lost);
    await expect(saver1.putWrites(stored, [["__interrupt__", []]], "task-1")).rejects.toMatchObject(lost);
    await expect(saver1.deleteThread(runId)).rejects.toMatchObject(lost);
    expect(await threadRows(runId)).toStrictEqual(before);

    // Other threads (the validation suite, a subgraph under another id) are not fenced.
    const other = randomUUID();
    await saver1.put(threadConfig(other), { ...emptyCheckpoint(), id: uuid6(0) }, meta, {});
    expect((await threadRows(other)).checkpoints).toHaveLength(1);

    const saver2 = new DatabaseCheckpointSaver(database.db, { fence: { runId, leaseGen: 2 } });
    const next = await saver2.put(stored, { ...emptyCheckpoint(), id: uuid6(0) }, meta, {});
    await saver2.putWrites(next, [["y", 2]], "task-2");
    const after = await threadRows(runId);
    expect(after.checkpoints).toHaveLength(2);
    expect(after.writes).toHaveLength(2);
    await saver2.deleteThread(runId);
    expect(await threadRows(runId)).toStrictEqual({ checkpoints: [], writes: [] });
  });

  it("answers a new thread's first read of its latest checkpoint without the database, and reads after that", async () => {
    const runId = randomUUID();
    await insertRun(runId, 1);
    // Stored behind the new saver's back: a read that asked the database would find it.
    const stored = await new DatabaseCheckpointSaver(database.db).put(
      threadConfig(runId),
      { ...emptyCheckpoint(), id: uuid6(0) },
      meta,
      {},
    );
    const saver = new DatabaseCheckpointSaver(database.db, { fence: { runId, leaseGen: 1 }, newThread: true });
    // Another thread, or one checkpoint by its id, is read as ever.
    expect(await saver.getTuple(threadConfig(randomUUID()))).toBeUndefined();
    expect((await saver.getTuple(stored))?.config).toEqual(stored);
    expect(await saver.getTuple(threadConfig(runId))).toBeUndefined();
    expect((await saver.getTuple(threadConfig(runId)))?.config).toEqual(stored);
    // After a put of its own, the thread's first read goes to the database too.
    const afterPut = new DatabaseCheckpointSaver(database.db, { fence: { runId, leaseGen: 1 }, newThread: true });
    const next = await afterPut.put(stored, { ...emptyCheckpoint(), id: uuid6(0) }, meta, {});
    expect((await afterPut.getTuple(threadConfig(runId)))?.config).toEqual(next);
  });

  it("refuses when the run row is gone", async () => {
    const saver = new DatabaseCheckpointSaver(database.db, { fence: { runId: "missing-run", leaseGen: 1 } });
    await expect(
      saver.put(threadConfig("missing-run"), { ...emptyCheckpoint(), id: uuid6(0) }, meta, {}),
    ).rejects.toMatchObject({ code: "LEASE_LOST" });
  });
});

describe("DatabaseCheckpointSaver details", () => {
  const meta = { source: "input" as const, step: -1, parents: {} };

  it("matches nothing, and throws nothing, for a hostile metadata filter key", async () => {
    const saver = new DatabaseCheckpointSaver(database.db);
    const threadId = randomUUID();
    await saver.put(threadConfig(threadId), { ...emptyCheckpoint(), id: uuid6(0) }, meta, {});
    const list = async (config: object, filter: Record<string, unknown>) => {
      const found = [];
      for await (const tuple of saver.list(config, { filter })) found.push(tuple);
      return found;
    };
    expect(await list(threadConfig(threadId), { "a') OR 1=1 --": 1 })).toEqual([]);
    expect(await list({}, { "a') OR 1=1 --": 1 })).toEqual([]);
    expect(await list({}, { "source') OR 1=1 --": "input", __proto__: null })).toEqual([]);
    expect(await list(threadConfig(threadId), { source: "input" })).toHaveLength(1);
    expect(await list(threadConfig(threadId), { parents: {} })).toHaveLength(1);
  });

  it("keeps regular writes and replaces special ones, stored before their checkpoint", async () => {
    const saver = new DatabaseCheckpointSaver(database.db);
    const threadId = randomUUID();
    const checkpointId = uuid6(0);
    const config = { configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: checkpointId } };
    // Writes may arrive before the checkpoint row: nothing depends on it existing.
    await saver.putWrites(config, FIRST_WRITES, "t1", "~p");
    await saver.putWrites(config, SECOND_WRITES, "t1", "~p");
    await saver.putWrites(config, SEND_WRITES, "t0", "");
    await saver.put(threadConfig(threadId), { ...emptyCheckpoint(), id: checkpointId }, meta, {});
    const tuple = await saver.getTuple(config);
    expect(tuple?.pendingWrites).toEqual(PENDING_AFTER_ALL);
  });

  it("stores what writes applied in turn would, when a run's writes share one batch", async () => {
    const { writes } = database.forRuns;
    const saver = new DatabaseCheckpointSaver(database.forRuns.db, { writes });
    const threadId = randomUUID();
    const checkpointId = uuid6(0);
    const config = { configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: checkpointId } };
    const before = writes.transactions;
    // Asked for in one turn: one transaction; on PostgreSQL its rows go in one statement.
    await Promise.all([
      saver.putWrites(config, FIRST_WRITES, "t1", "~p"),
      saver.put(threadConfig(threadId), { ...emptyCheckpoint(), id: checkpointId }, { ...meta, step: 1 }, {}),
      saver.putWrites(config, SECOND_WRITES, "t1", "~p"),
      saver.putWrites(config, SEND_WRITES, "t0", ""),
      saver.put(threadConfig(threadId), { ...emptyCheckpoint(), id: checkpointId }, { ...meta, step: 2 }, {}),
    ]);
    expect(writes.transactions - before).toBe(1);
    const tuple = await saver.getTuple(config);
    expect(tuple?.pendingWrites).toEqual(PENDING_AFTER_ALL);
    // The later put of one checkpoint replaced the earlier one, as an upsert in turn would.
    expect(tuple?.metadata?.step).toBe(2);
    expect((await threadRows(threadId)).checkpoints).toHaveLength(1);
  });

  it("returns the latest checkpoint of a thread by code point order of ids", async () => {
    const saver = new DatabaseCheckpointSaver(database.db);
    const threadId = randomUUID();
    for (const id of ["B", "a", "_", "Z"]) {
      await saver.put(threadConfig(threadId), { ...emptyCheckpoint(), id }, meta, {});
    }
    expect((await saver.getTuple(threadConfig(threadId)))?.checkpoint.id).toBe("a");
    const ids = [];
    for await (const tuple of saver.list(threadConfig(threadId))) ids.push(tuple.checkpoint.id);
    expect(ids).toEqual(["a", "_", "Z", "B"]);
  });
});
