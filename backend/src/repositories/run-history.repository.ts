// A run's history as its checkpoints tell it: the top-level checkpoint after each superstep (the
// run's LangGraph thread, thread_id = run id), the nodes its events say ran in each, and the copy
// of one checkpoint that a fork starts from. Checkpoint ids are compared by code point (see
// checkpoint.saver.ts), never by the database collation.
import type { Kysely } from "kysely";
import { lazyImport } from "../core/lazy-import.js";
import type { Database } from "../models/database.model.js";
import { nowIso } from "./clock.js";

/** One stored checkpoint of a run, decoded. */
export interface RunCheckpoint {
  checkpointId: string;
  /** The superstep after which it was written (LangGraph's metadata.step). */
  step: number;
  createdAt: string;
  /** Every channel's value, hidden ones included. */
  values: Record<string, unknown>;
}

/** What the events say a node did in a superstep. */
export interface StepNode {
  node_id: string;
  status: "ok" | "error";
  reused: boolean;
  iteration: string | null;
}

interface StoredCheckpoint {
  id: string;
  channel_values?: Record<string, unknown>;
  [key: string]: unknown;
}

// The checkpoints' serializer (and LangGraph's checkpoint package with it) loads on first use, not
// at start: the studio starts without LangGraph.
const checkpointing = lazyImport(async () => {
  const [{ PlainJsonSerde }, { uuid6 }] = await Promise.all([
    import("./plain-json.serde.js"),
    import("@langchain/langgraph-checkpoint"),
  ]);
  return { serde: new PlainJsonSerde(), uuid6 };
});
const decoder = new TextDecoder();

async function load(text: string): Promise<unknown> {
  return (await checkpointing()).serde.loadsTyped("json", text);
}

async function dump(value: unknown): Promise<string> {
  const [, bytes] = await (await checkpointing()).serde.dumpsTyped(value);
  return decoder.decode(bytes);
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export class RunHistoryRepository {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** A reader of the run's checkpoints for LangGraph (what runs next from one of them). */
  async checkpointReader() {
    const { DatabaseCheckpointSaver } = await import("./checkpoint.saver.js");
    return new DatabaseCheckpointSaver(this.#db);
  }

  /**
   * The run's checkpoints after its supersteps (step ≥ 0: the one before the input is applied is
   * left out), oldest first, `limit` of them from `offset`; with the total.
   */
  async steps(
    runId: string,
    limit: number,
    offset: number,
  ): Promise<{ total: number; lastStep: number; items: RunCheckpoint[] }> {
    const ids = await this.#index(runId);
    const items = await this.#read(runId, ids.slice(offset, offset + limit));
    return { total: ids.length, lastStep: ids.at(-1)?.step ?? -1, items };
  }

  /** One checkpoint of the run, by id or by superstep (the last one written for it). */
  async find(runId: string, at: { checkpointId: string } | { step: number }): Promise<RunCheckpoint | undefined> {
    const ids = await this.#index(runId);
    const entry =
      "checkpointId" in at
        ? ids.find((candidate) => candidate.id === at.checkpointId)
        : ids.findLast((candidate) => candidate.step === at.step);
    return entry ? (await this.#read(runId, [entry]))[0] : undefined;
  }

  /**
   * What the run's events say ran in these supersteps (node_finished and node errors), or, with
   * `{ after }`, in every superstep after that one (a superstep that failed has no checkpoint).
   */
  async nodesIn(runId: string, steps: number[] | { after: number }): Promise<Map<number, StepNode[]>> {
    const bySteps = new Map<number, StepNode[]>(Array.isArray(steps) ? steps.map((step) => [step, []]) : []);
    if (Array.isArray(steps) && steps.length === 0) return bySteps;
    const rows = await this.#db
      .selectFrom("run_events")
      .select(["superstep", "node_id", "type", "data"])
      .where("run_id", "=", runId)
      .where((eb) => (Array.isArray(steps) ? eb("superstep", "in", steps) : eb("superstep", ">", steps.after)))
      .where("type", "in", ["node_finished", "error"])
      .where("node_id", "is not", null)
      // Nodes inside a Subgraph ("sub/inner") count the child graph's supersteps: not the run's.
      .where("node_id", "not like", "%/%")
      .orderBy("seq")
      .execute();
    for (const row of rows) {
      const data = JSON.parse(row.data) as { reused?: unknown; iteration?: unknown };
      const step = row.superstep as number;
      if (!bySteps.has(step)) bySteps.set(step, []);
      bySteps.get(step)?.push({
        node_id: row.node_id as string,
        status: row.type === "error" ? "error" : "ok",
        reused: data.reused === true,
        iteration: typeof data.iteration === "string" ? data.iteration : null,
      });
    }
    return bySteps;
  }

  /**
   * Writes the first checkpoint of a fork: a copy of `from` (a checkpoint of the parent run) in
   * the fork's thread, under a new id, with `values` replacing channel values. Channel versions
   * and what each node has seen are kept, so the nodes that run next are the ones that ran next
   * in the parent. No pending writes are copied: every next task runs in the fork (side effects
   * the parent finished come from its ledger). Part of the transaction that creates the fork.
   */
  async insertForkCheckpoint(
    tx: Kysely<Database>,
    from: { runId: string; checkpointId: string },
    forkRunId: string,
    values: Record<string, unknown>,
  ): Promise<string> {
    const row = await tx
      .selectFrom("checkpoints")
      .select(["checkpoint", "metadata"])
      .where("thread_id", "=", from.runId)
      .where("checkpoint_ns", "=", "")
      .where("checkpoint_id", "=", from.checkpointId)
      .executeTakeFirstOrThrow();
    const checkpoint = (await load(row.checkpoint)) as StoredCheckpoint;
    const metadata = (await load(row.metadata)) as Record<string, unknown>;
    // LangGraph's own time-ordered ids: the fork's later checkpoints sort after this one.
    const id = (await checkpointing()).uuid6(0);
    const copy: StoredCheckpoint = {
      ...checkpoint,
      id,
      ts: new Date().toISOString(),
      channel_values: { ...(checkpoint.channel_values ?? {}), ...values },
    };
    await tx
      .insertInto("checkpoints")
      .values({
        thread_id: forkRunId,
        checkpoint_ns: "",
        checkpoint_id: id,
        parent_checkpoint_id: null,
        checkpoint: await dump(copy),
        metadata: await dump({ ...metadata, source: "fork", parents: {} }),
        created_at: nowIso(),
      })
      .execute();
    return id;
  }

  /** The run's top-level checkpoints after a superstep, oldest first: ids and steps only. */
  async #index(runId: string): Promise<{ id: string; step: number }[]> {
    const rows = await this.#db
      .selectFrom("checkpoints")
      .select(["checkpoint_id", "metadata"])
      .where("thread_id", "=", runId)
      .where("checkpoint_ns", "=", "")
      .execute();
    const entries: { id: string; step: number }[] = [];
    for (const row of rows) {
      const step = ((await load(row.metadata)) as { step?: unknown }).step;
      if (typeof step === "number" && step >= 0) entries.push({ id: row.checkpoint_id, step });
    }
    return entries.sort((a, b) => byCodePoint(a.id, b.id));
  }

  /** The checkpoints of these entries, decoded, in the entries' order (one query). */
  async #read(runId: string, entries: { id: string; step: number }[]): Promise<RunCheckpoint[]> {
    if (entries.length === 0) return [];
    const rows = await this.#db
      .selectFrom("checkpoints")
      .select(["checkpoint_id", "checkpoint", "created_at"])
      .where("thread_id", "=", runId)
      .where("checkpoint_ns", "=", "")
      .where(
        "checkpoint_id",
        "in",
        entries.map((entry) => entry.id),
      )
      .execute();
    const byId = new Map(rows.map((row) => [row.checkpoint_id, row]));
    const items: RunCheckpoint[] = [];
    for (const entry of entries) {
      const row = byId.get(entry.id);
      // Deleted since the index was read.
      if (!row) continue;
      const checkpoint = (await load(row.checkpoint)) as StoredCheckpoint;
      items.push({
        checkpointId: entry.id,
        step: entry.step,
        createdAt: row.created_at,
        values: checkpoint.channel_values ?? {},
      });
    }
    return items;
  }
}
