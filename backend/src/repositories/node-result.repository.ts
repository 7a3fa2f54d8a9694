// The node result ledger: the state update a node with side effects returned, by idempotency
// key, so a run resumed after a crash does not call out twice, and a fork of the run reuses what
// it finished. The first result stored wins. Results are kept as long as the run.
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

  /**
   * The ledger of a fork: its own results first; then, for a node not chosen to run again, the
   * result the parent run finished under the same key (the same node and iteration: the key with
   * the parent's run id). A result taken from the parent is copied into the fork's own ledger
   * first, so a fork of the fork, or the fork taken over after a crash, finds it there. The
   * parent's rows are only read.
   */
  forkLedgerFor(runId: string, parentRunId: string, rerun: ReadonlySet<string>): NodeResultLedger {
    const own = this.ledgerFor(runId);
    return {
      get: async (key) => {
        const found = await own.get(key);
        if (found || !key.startsWith(`${runId}:`)) return found;
        const rest = key.slice(runId.length + 1);
        // The top-level node: a Subgraph node's id prefixes the keys of the nodes inside it.
        if (rerun.has(rest.split(":")[0] as string)) return undefined;
        const inherited = await this.find(parentRunId, `${parentRunId}:${rest}`);
        if (inherited) await this.insert(runId, key, inherited);
        return inherited;
      },
      put: own.put,
    };
  }

  /** The keys of a run's stored results, without its run id prefix (`<node id>:<iteration>…`). */
  async keysOf(runId: string): Promise<string[]> {
    const rows = await this.#db.selectFrom("node_results").select("key").where("run_id", "=", runId).execute();
    const prefix = `${runId}:`;
    return rows.filter((row) => row.key.startsWith(prefix)).map((row) => row.key.slice(prefix.length));
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

  /** Forgets every result of the run. */
  async deleteRun(runId: string): Promise<void> {
    await this.#db.deleteFrom("node_results").where("run_id", "=", runId).execute();
  }
}
