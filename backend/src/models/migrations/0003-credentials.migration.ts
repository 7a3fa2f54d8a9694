import type { Kysely } from "kysely";

// Stored credentials. `secret` is the sealed (AES-256-GCM) JSON of the credential's data; the
// key id inside it says which encryption key opens it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("credentials")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("secret", "text", (c) => c.notNull())
    .addColumn("fields", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("last_used_at", "text")
    .execute();
  await db.schema
    .createIndex("credentials_owner_name_idx")
    .on("credentials")
    .columns(["owner_id", "name"])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("credentials").execute();
}
