import type { Kysely } from "kysely";

// Runs waiting for a person cost nothing while they wait: the sweeper's look for overdue waits
// reads only the waits that are overdue (status, expires_at), and admitting a trigger counts only
// the owner's queued and running runs (owner_id, status), not every run the owner ever had.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("runs_wait_expiry_idx").on("runs").columns(["status", "expires_at"]).execute();
  await db.schema.createIndex("runs_owner_status_idx").on("runs").columns(["owner_id", "status"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("runs_owner_status_idx").execute();
  await db.schema.dropIndex("runs_wait_expiry_idx").execute();
}
