import type { Kysely } from "kysely";

// Runs, their events, LangGraph checkpoints and the node result ledger. Payloads are JSON text
// (never revived into classes), times ISO text: the same schema on SQLite and PostgreSQL.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("runs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("workflow_id", "text")
    .addColumn("workflow_version", "integer")
    .addColumn("content_hash", "text", (c) => c.notNull())
    .addColumn("document", "text", (c) => c.notNull())
    .addColumn("trigger", "text", (c) => c.notNull())
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("input", "text", (c) => c.notNull())
    .addColumn("context", "text", (c) => c.notNull())
    .addColumn("state", "text")
    .addColumn("output", "text")
    .addColumn("error", "text")
    .addColumn("waiting", "text")
    .addColumn("pending_resume", "text")
    .addColumn("expires_at", "text")
    .addColumn("metrics", "text")
    .addColumn("lease_gen", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("lease_owner", "text")
    .addColumn("lease_expires_at", "text")
    .addColumn("attempt", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_seq", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("idempotency_key", "text")
    .addColumn("callback_url", "text")
    .addColumn("api_key_id", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("started_at", "text")
    .addColumn("finished_at", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("runs_owner_idx").on("runs").columns(["owner_id", "created_at"]).execute();
  await db.schema.createIndex("runs_status_idx").on("runs").columns(["status", "updated_at"]).execute();
  await db.schema
    .createIndex("runs_idempotency_idx")
    .on("runs")
    .columns(["owner_id", "workflow_id", "idempotency_key"])
    .unique()
    .execute();

  await db.schema
    .createTable("run_events")
    .addColumn("run_id", "text", (c) => c.notNull().references("runs.id").onDelete("cascade"))
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("node_id", "text")
    .addColumn("superstep", "integer")
    .addColumn("ts", "text", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("run_events_pk", ["run_id", "seq"])
    .execute();

  await db.schema
    .createTable("checkpoints")
    .addColumn("thread_id", "text", (c) => c.notNull())
    .addColumn("checkpoint_ns", "text", (c) => c.notNull())
    .addColumn("checkpoint_id", "text", (c) => c.notNull())
    .addColumn("parent_checkpoint_id", "text")
    .addColumn("checkpoint", "text", (c) => c.notNull())
    .addColumn("metadata", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("checkpoints_pk", ["thread_id", "checkpoint_ns", "checkpoint_id"])
    .execute();

  await db.schema
    .createTable("checkpoint_writes")
    .addColumn("thread_id", "text", (c) => c.notNull())
    .addColumn("checkpoint_ns", "text", (c) => c.notNull())
    .addColumn("checkpoint_id", "text", (c) => c.notNull())
    .addColumn("task_id", "text", (c) => c.notNull())
    .addColumn("idx", "integer", (c) => c.notNull())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("task_path", "text", (c) => c.notNull().defaultTo(""))
    .addPrimaryKeyConstraint("checkpoint_writes_pk", ["thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx"])
    .execute();

  await db.schema
    .createTable("callback_deliveries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("run_id", "text", (c) => c.notNull().references("runs.id").onDelete("cascade"))
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("status_code", "integer")
    .addColumn("error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("callback_deliveries_run_idx")
    .on("callback_deliveries")
    .columns(["run_id", "attempt"])
    .execute();

  await db.schema
    .createTable("schedules")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workflow_id", "text", (c) => c.notNull().references("workflows.id").onDelete("cascade"))
    .addColumn("owner_id", "text", (c) => c.notNull())
    .addColumn("cron", "text", (c) => c.notNull())
    .addColumn("timezone", "text", (c) => c.notNull())
    .addColumn("input", "text", (c) => c.notNull())
    .addColumn("enabled", "integer", (c) => c.notNull())
    .addColumn("next_fire_at", "text")
    .addColumn("last_fire_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("schedules_due_idx").on("schedules").columns(["enabled", "next_fire_at"]).execute();

  // The secret that signs callbacks for runs started with this key.
  await db.schema.alterTable("api_keys").addColumn("callback_secret", "text").execute();

  await db.schema
    .createTable("node_results")
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("result", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("node_results_pk", ["run_id", "key"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("api_keys").dropColumn("callback_secret").execute();
  for (const table of [
    "node_results",
    "callback_deliveries",
    "checkpoint_writes",
    "checkpoints",
    "run_events",
    "runs",
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
