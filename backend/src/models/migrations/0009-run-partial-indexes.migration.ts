import { type Kysely, sql } from "kysely";

// Each index on runs holds only the runs its queries look for. Every run is written three times
// (queued, running, ended), and each write changed an entry in every index keyed on its status,
// and on PostgreSQL, where a row's new version gets an entry in each index whose condition it
// meets, in every index on the table. Now a run that ended is in none of the status indexes, and
// a run that is no fork, came from no schedule or has no idempotency key is in none of those
// three. The queries that use these indexes write their statuses as constants, so that the
// database can tell an index's condition holds when it plans them (decision 0037).
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const name of [
    "runs_status_idx",
    "runs_lease_idx",
    "runs_wait_expiry_idx",
    "runs_owner_status_idx",
    "runs_parent_idx",
    "runs_schedule_idx",
    "runs_idempotency_idx",
  ])
    await db.schema.dropIndex(name).execute();
  // The runs of one status: queued by a process that stopped, by how long they have been queued
  // (the sweep); running, by lease (expired leases, overlong turns); waiting, by when the Human
  // node's wait expires.
  for (const [name, column, status] of [
    ["runs_queued_idx", "updated_at", "queued"],
    ["runs_running_idx", "lease_expires_at", "running"],
    ["runs_waiting_idx", "expires_at", "waiting"],
  ] as const)
    await db.schema.createIndex(name).on("runs").column(column).where(sql.ref("status"), "=", status).execute();
  // Admission counts the owner's queued and running runs.
  await db.schema
    .createIndex("runs_owner_active_idx")
    .on("runs")
    .column("owner_id")
    .where(sql<boolean>`status in ('queued', 'running')`)
    .execute();
  await db.schema
    .createIndex("runs_parent_idx")
    .on("runs")
    .column("parent_run_id")
    .where(sql.ref("parent_run_id"), "is not", null)
    .execute();
  await db.schema
    .createIndex("runs_schedule_idx")
    .on("runs")
    .columns(["schedule_id", "created_at"])
    .where(sql.ref("schedule_id"), "is not", null)
    .execute();
  await db.schema
    .createIndex("runs_idempotency_idx")
    .on("runs")
    .columns(["owner_id", "workflow_id", "idempotency_key"])
    .unique()
    .where(sql.ref("idempotency_key"), "is not", null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const name of [
    "runs_queued_idx",
    "runs_running_idx",
    "runs_waiting_idx",
    "runs_owner_active_idx",
    "runs_parent_idx",
    "runs_schedule_idx",
    "runs_idempotency_idx",
  ])
    await db.schema.dropIndex(name).execute();
  await db.schema.createIndex("runs_status_idx").on("runs").columns(["status", "updated_at"]).execute();
  await db.schema.createIndex("runs_lease_idx").on("runs").columns(["status", "lease_expires_at"]).execute();
  await db.schema.createIndex("runs_wait_expiry_idx").on("runs").columns(["status", "expires_at"]).execute();
  await db.schema.createIndex("runs_owner_status_idx").on("runs").columns(["owner_id", "status"]).execute();
  await db.schema.createIndex("runs_parent_idx").on("runs").column("parent_run_id").execute();
  await db.schema.createIndex("runs_schedule_idx").on("runs").columns(["schedule_id", "created_at"]).execute();
  await db.schema
    .createIndex("runs_idempotency_idx")
    .on("runs")
    .columns(["owner_id", "workflow_id", "idempotency_key"])
    .unique()
    .execute();
}
