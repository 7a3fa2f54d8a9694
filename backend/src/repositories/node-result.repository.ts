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
  readonly #settled: () => Promise<void>;

  /** `settled` resolves once everything read or written so far is on disk (DatabaseHandle.settled). */
  constructor(db: Kysely<Database>, settled: () => Promise<void> = async () => {}) {
    this.#db = db;
    this.#settled = settled;
  }

  /**
   * The ledger of one run. A node looks its key up right before it calls another system: first,
   * everything the run has written so far (its checkpoints, acknowledged at commit) reaches the
   * disk, so that no call leaves the server on state a power loss could take back. A result is
   * put once on disk.
   */
  ledgerFor(runId: string): NodeResultLedger {
    return {
      get: async (key) => {
        await this.#settled();
        return this.find(runId, key);
      },
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
