// The node result ledger: the state update a node with side effects returned, by idempotency
// key, so a run resumed after a crash does not call out twice. The first result stored wins.
import type { Kysely } from "kysely";
import type { Database } from "../models/database.model.js";
import { nowIso } from "./clock.js";

// Structurally the engine's LedgerEntry / ResultLedger (engine/runtime/ports.ts): repositories
// never import the engine, services hand this object to it.
export interface NodeResultEntry {
  /** The state update the node returned. */
  update: Record<string, unknown>;
}

export interface NodeResultLedger {
  get(key: string): Promise<NodeResultEntry | undefined>;
  put(key: string, entry: NodeResultEntry): Promise<void>;
}

export class NodeResultRepository {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** The ledger of one run. */
  ledgerFor(runId: string): NodeResultLedger {
    return {
      get: (key) => this.find(runId, key),
      put: (key, entry) => this.insert(runId, key, entry),
    };
  }

  async find(runId: string, key: string): Promise<NodeResultEntry | undefined> {
    const row = await this.#db
      .selectFrom("node_results")
      .select("result")
      .where("run_id", "=", runId)
      .where("key", "=", key)
      .executeTakeFirst();
    // Plain JSON.parse: the stored update comes back as plain data, never revived.
    return row ? { update: (JSON.parse(row.result) as NodeResultEntry).update } : undefined;
  }

  /** Stores the result unless one is already stored under the key (the first one wins). */
  async insert(runId: string, key: string, entry: NodeResultEntry): Promise<void> {
    await this.#db
      .insertInto("node_results")
      .values({ run_id: runId, key, result: JSON.stringify({ update: entry.update }), created_at: nowIso() })
      .onConflict((oc) => oc.columns(["run_id", "key"]).doNothing())
      .execute();
  }

  /** Forgets every result of the run (once it has ended). */
  async deleteRun(runId: string): Promise<void> {
    await this.#db.deleteFrom("node_results").where("run_id", "=", runId).execute();
  }
}
