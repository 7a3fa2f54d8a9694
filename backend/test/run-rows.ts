// Every stored row of one run, as text, so a test can show that an action left the run unchanged.
import type { Kysely } from "kysely";
import type { Database } from "../src/models/database.model.js";

/** The run's row, events, checkpoints, task writes and ledger, in a stable order. */
export async function storedRowsOf(db: Kysely<Database>, runId: string): Promise<string> {
  return JSON.stringify({
    run: await db.selectFrom("runs").selectAll().where("id", "=", runId).execute(),
    events: await db.selectFrom("run_events").selectAll().where("run_id", "=", runId).orderBy("seq").execute(),
    checkpoints: await db
      .selectFrom("checkpoints")
      .selectAll()
      .where("thread_id", "=", runId)
      .orderBy("checkpoint_ns")
      .orderBy("checkpoint_id")
      .execute(),
    writes: await db
      .selectFrom("checkpoint_writes")
      .selectAll()
      .where("thread_id", "=", runId)
      .orderBy("checkpoint_ns")
      .orderBy("checkpoint_id")
      .orderBy("task_id")
      .orderBy("idx")
      .execute(),
    ledger: await db.selectFrom("node_results").selectAll().where("run_id", "=", runId).orderBy("key").execute(),
  });
}
