// What the events of a workflow's newest runs say about each node: read for the editor's overlay
// (median time, error rate, tokens per node). Only node_started, node_finished and error events
// with a node are read, and never more than the caller's budget of them.
import type { Kysely } from "kysely";
import type { Database } from "../models/database.model.js";

export interface NodeEventRow {
  run_id: string;
  type: string;
  node_id: string;
  data: string;
}

const NODE_EVENT_TYPES = ["node_started", "node_finished", "error"];

export class RunStatsRepository {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** The ids of the owner's newest `limit` runs of the workflow that have started, newest first. */
  async newestStartedRuns(ownerId: string, workflowId: string, limit: number): Promise<string[]> {
    const rows = await this.#db
      .selectFrom("runs")
      .select("id")
      .where("owner_id", "=", ownerId)
      .where("workflow_id", "=", workflowId)
      .where("started_at", "is not", null)
      .orderBy("created_at", "desc")
      .orderBy("id")
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  /** How many node events each run has (a count: no event's data is read). */
  async countNodeEvents(runIds: string[]): Promise<Map<string, number>> {
    if (runIds.length === 0) return new Map();
    const rows = await this.#db
      .selectFrom("run_events")
      .select((eb) => ["run_id", eb.fn.countAll<string | number>().as("n")])
      .where("run_id", "in", runIds)
      .where("type", "in", NODE_EVENT_TYPES)
      .where("node_id", "is not", null)
      .groupBy("run_id")
      .execute();
    return new Map(rows.map((row) => [row.run_id, Number(row.n)]));
  }

  /** The node events of these runs. */
  async nodeEvents(runIds: string[]): Promise<NodeEventRow[]> {
    if (runIds.length === 0) return [];
    return (await this.#db
      .selectFrom("run_events")
      .select(["run_id", "type", "node_id", "data"])
      .where("run_id", "in", runIds)
      .where("type", "in", NODE_EVENT_TYPES)
      .where("node_id", "is not", null)
      .execute()) as NodeEventRow[];
  }

  /** The first `limit` node events of one run, in order. */
  async nodeEventsOfRun(runId: string, limit: number): Promise<NodeEventRow[]> {
    return (await this.#db
      .selectFrom("run_events")
      .select(["run_id", "type", "node_id", "data"])
      .where("run_id", "=", runId)
      .where("type", "in", NODE_EVENT_TYPES)
      .where("node_id", "is not", null)
      .orderBy("seq")
      .limit(limit)
      .execute()) as NodeEventRow[];
  }
}
