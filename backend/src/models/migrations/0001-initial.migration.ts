import { type Kysely, sql } from "kysely";

// Only portable column types (text, integer) so one migration serves SQLite and PostgreSQL.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("users")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("email", "text", (c) => c.notNull().unique())
    .addColumn("name", "text")
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  // At most one owner: two racing first-time setups cannot both succeed.
  await db.schema
    .createIndex("users_single_owner")
    .on("users")
    .column("role")
    .unique()
    .where(sql.ref("role"), "=", "owner")
    .execute();

  await db.schema
    .createTable("api_keys")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("prefix", "text", (c) => c.notNull())
    .addColumn("key_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_used_at", "text")
    .addColumn("revoked_at", "text")
    .execute();
  await db.schema.createIndex("api_keys_user_idx").on("api_keys").columns(["user_id", "created_at"]).execute();

  await db.schema
    .createTable("workflows")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("document", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("content_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("workflows_owner_idx").on("workflows").columns(["owner_id", "updated_at"]).execute();

  await db.schema
    .createTable("workflow_versions")
    .addColumn("workflow_id", "text", (c) => c.notNull().references("workflows.id").onDelete("cascade"))
    .addColumn("number", "integer", (c) => c.notNull())
    .addColumn("content_hash", "text", (c) => c.notNull())
    .addColumn("document", "text", (c) => c.notNull())
    .addColumn("author_id", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("restored_from", "integer")
    .addPrimaryKeyConstraint("workflow_versions_pk", ["workflow_id", "number"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("workflow_versions").execute();
  await db.schema.dropTable("workflows").execute();
  await db.schema.dropTable("api_keys").execute();
  await db.schema.dropTable("users").execute();
}
