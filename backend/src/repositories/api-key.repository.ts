import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
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

// Read by every hook call: compiled once.
const activeKeyByHash = preparedQuery<{ keyHash: string }, ApiKeyRow>((db, p) =>
  db.selectFrom("api_keys").selectAll().where("key_hash", "=", p.keyHash).where("revoked_at", "is", null),
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

  async findActiveByHash(keyHash: string): Promise<ApiKeyRow | undefined> {
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
