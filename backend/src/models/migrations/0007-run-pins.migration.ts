import type { Kysely } from "kysely";

// Pinned outputs: an editor run records the nodes it did not execute and the output pinned for
// each (JSON object by node id; null for a run without pins).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("runs").addColumn("pins", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("runs").dropColumn("pins").execute();
}
