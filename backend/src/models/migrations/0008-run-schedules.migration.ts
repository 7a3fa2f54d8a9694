import type { Kysely } from "kysely";

// The schedule that started a run (schedule runs only), so a schedule's runs can be listed. Runs
// started by a schedule before this migration keep null: their idempotency key still names it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("runs").addColumn("schedule_id", "text").execute();
  await db.schema.createIndex("runs_schedule_idx").on("runs").columns(["schedule_id", "created_at"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("runs_schedule_idx").execute();
  await db.schema.alterTable("runs").dropColumn("schedule_id").execute();
}
