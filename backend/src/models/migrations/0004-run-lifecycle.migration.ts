import { type Kysely, sql } from "kysely";

// The run lifecycle across processes and restarts: when the current turn of a run started (the run
// timeout counts running time only, never a wait), and the callback outbox, which keeps every
// pending callback delivery in the database so that a restart delivers it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("runs").addColumn("turn_started_at", "text").execute();
  // A run running at the upgrade has been in its turn since it last started (the best we know).
  await sql`update runs set turn_started_at = started_at where status = 'running'`.execute(db);
  await db.schema.createIndex("runs_lease_idx").on("runs").columns(["status", "lease_expires_at"]).execute();

  await db.schema
    .createTable("callback_outbox")
    .addColumn("run_id", "text", (c) => c.primaryKey().references("runs.id").onDelete("cascade"))
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "text", (c) => c.notNull())
    .addColumn("claimed_by", "text")
    .addColumn("claimed_until", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("callback_outbox_due_idx")
    .on("callback_outbox")
    .columns(["status", "next_attempt_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("callback_outbox").execute();
  await db.schema.dropIndex("runs_lease_idx").execute();
  await db.schema.alterTable("runs").dropColumn("turn_started_at").execute();
}
