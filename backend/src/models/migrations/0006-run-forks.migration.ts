import type { Kysely } from "kysely";

// Forks: a run started from a checkpoint of another run records that run and checkpoint, and the
// side-effect nodes the user chose to run again instead of reusing the parent's results.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("runs").addColumn("parent_run_id", "text").execute();
  await db.schema.alterTable("runs").addColumn("parent_checkpoint_id", "text").execute();
  // JSON list of node ids; null for a run that is not a fork.
  await db.schema.alterTable("runs").addColumn("fork_rerun", "text").execute();
  await db.schema.createIndex("runs_parent_idx").on("runs").column("parent_run_id").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("runs_parent_idx").execute();
  await db.schema.alterTable("runs").dropColumn("fork_rerun").execute();
  await db.schema.alterTable("runs").dropColumn("parent_checkpoint_id").execute();
  await db.schema.alterTable("runs").dropColumn("parent_run_id").execute();
}
