import type { Kysely } from "kysely";

// Admitting a run counts its owner's queued and running runs on every trigger: without this index
// that count reads every run the owner ever had (runs_owner_idx), so triggers got slower with
// history; with it, it reads only the active ones.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("runs_owner_status_idx").on("runs").columns(["owner_id", "status"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("runs_owner_status_idx").execute();
}
