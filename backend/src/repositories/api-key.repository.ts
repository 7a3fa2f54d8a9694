import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { UserRole } from "../core/authz.js";
import type { ApiKeyRow, Database } from "../models/database.model.js";
import { nowIso } from "./clock.js";
import { preparedQuery } from "./prepared-query.js";

export interface NewApiKey {
  userId: string;
  name: string;
  prefix: string;
  keyHash: string;
  callbackSecret: string;
}

/** An active key with the role of the user it belongs to. */
export type ActiveApiKey = ApiKeyRow & { owner_role: UserRole };

// Read by every hook call: compiled once, the key and its user in one statement (one round trip
// on PostgreSQL).
const activeKeyByHash = preparedQuery<{ keyHash: string }, ActiveApiKey>((db, p) =>
  db
    .selectFrom("api_keys")
    .innerJoin("users", "users.id", "api_keys.user_id")
    .selectAll("api_keys")
    .select("users.role as owner_role")
    .where("api_keys.key_hash", "=", p.keyHash)
    .where("api_keys.revoked_at", "is", null),
);

export class ApiKeyRepository {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async create(input: NewApiKey): Promise<ApiKeyRow> {
    const row: ApiKeyRow = {
      id: randomUUID(),
      user_id: input.userId,
      name: input.name,
      prefix: input.prefix,
      key_hash: input.keyHash,
      created_at: nowIso(),
      last_used_at: null,
      revoked_at: null,
      callback_secret: input.callbackSecret,
    };
    await this.#db.insertInto("api_keys").values(row).execute();
    return row;
  }

  listByUser(userId: string, limit: number, offset: number): Promise<ApiKeyRow[]> {
    return this.#db
      .selectFrom("api_keys")
      .selectAll()
      .where("user_id", "=", userId)
      .orderBy("created_at", "desc")
      .orderBy("id")
      .limit(limit)
      .offset(offset)
      .execute();
  }

  findById(id: string): Promise<ApiKeyRow | undefined> {
    return this.#db.selectFrom("api_keys").selectAll().where("id", "=", id).executeTakeFirst();
  }

  /** The key with this hash, unless revoked or its user is gone. */
  async findActiveByHash(keyHash: string): Promise<ActiveApiKey | undefined> {
    return (await activeKeyByHash(this.#db, { keyHash })).rows[0];
  }

  async markUsed(id: string): Promise<void> {
    await this.#db.updateTable("api_keys").set({ last_used_at: nowIso() }).where("id", "=", id).execute();
  }

  /** Sets revoked_at once; revoking again keeps the first time. */
  async revoke(id: string): Promise<ApiKeyRow | undefined> {
    await this.#db
      .updateTable("api_keys")
      .set({ revoked_at: nowIso() })
      .where("id", "=", id)
      .where("revoked_at", "is", null)
      .execute();
    return this.findById(id);
  }
}
