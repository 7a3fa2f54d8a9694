import type { Kysely } from "kysely";
import type { CredentialRow, Database } from "../models/database.model.js";
import { nowIso } from "./clock.js";
import { isUniqueViolation } from "./database-errors.js";

export interface NewCredential {
  /** Chosen by the caller, because the sealed secret is bound to it. */
  id: string;
  ownerId: string;
  name: string;
  type: string;
  secret: string;
  fields: string[];
}

export type CredentialWrite<T> = { ok: true; row: T } | { ok: false; reason: "name_taken" };

export class CredentialRepository {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async create(input: NewCredential): Promise<CredentialWrite<CredentialRow>> {
    const now = nowIso();
    const row: CredentialRow = {
      id: input.id,
      owner_id: input.ownerId,
      name: input.name,
      type: input.type,
      secret: input.secret,
      fields: JSON.stringify(input.fields),
      created_at: now,
      updated_at: now,
      last_used_at: null,
    };
    try {
      await this.#db.insertInto("credentials").values(row).execute();
    } catch (error) {
      if (isUniqueViolation(error)) return { ok: false, reason: "name_taken" };
      throw error;
    }
    return { ok: true, row };
  }

  listByOwner(ownerId: string, limit: number, offset: number): Promise<CredentialRow[]> {
    return this.#db
      .selectFrom("credentials")
      .selectAll()
      .where("owner_id", "=", ownerId)
      .orderBy("name")
      .orderBy("id")
      .limit(limit)
      .offset(offset)
      .execute();
  }

  /** The owner's credential with this id; another user's is never returned. */
  findOwned(ownerId: string, id: string): Promise<CredentialRow | undefined> {
    return this.#db
      .selectFrom("credentials")
      .selectAll()
      .where("owner_id", "=", ownerId)
      .where("id", "=", id)
      .executeTakeFirst();
  }

  async update(
    ownerId: string,
    id: string,
    changes: { name?: string; secret?: string; fields?: string[] },
  ): Promise<CredentialWrite<CredentialRow | undefined>> {
    try {
      await this.#db
        .updateTable("credentials")
        .set({
          ...(changes.name !== undefined ? { name: changes.name } : {}),
          ...(changes.secret !== undefined ? { secret: changes.secret } : {}),
          ...(changes.fields !== undefined ? { fields: JSON.stringify(changes.fields) } : {}),
          updated_at: nowIso(),
        })
        .where("owner_id", "=", ownerId)
        .where("id", "=", id)
        .execute();
    } catch (error) {
      if (isUniqueViolation(error)) return { ok: false, reason: "name_taken" };
      throw error;
    }
    return { ok: true, row: await this.findOwned(ownerId, id) };
  }

  async delete(ownerId: string, id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom("credentials")
      .where("owner_id", "=", ownerId)
      .where("id", "=", id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async markUsed(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.#db.updateTable("credentials").set({ last_used_at: nowIso() }).where("id", "in", ids).execute();
  }

  /** Every credential (id, owner, sealed secret), for re-encryption under a new key. */
  listSealed(): Promise<Pick<CredentialRow, "id" | "owner_id" | "secret">[]> {
    return this.#db.selectFrom("credentials").select(["id", "owner_id", "secret"]).orderBy("id").execute();
  }

  /** Replaces a sealed secret only if it is still the one read (a concurrent update wins). */
  async replaceSealed(id: string, previous: string, secret: string): Promise<boolean> {
    const result = await this.#db
      .updateTable("credentials")
      .set({ secret })
      .where("id", "=", id)
      .where("secret", "=", previous)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
