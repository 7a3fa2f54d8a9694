import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { UserRole } from "../core/authz.js";
import type { Database, UserRow } from "../models/database.model.js";
import { nowIso } from "./clock.js";
import { isUniqueViolation } from "./database-errors.js";
import { preparedQuery } from "./prepared-query.js";

export interface NewUser {
  email: string;
  name: string | null;
  passwordHash: string;
  role: UserRole;
}

export type CreateUserResult = { ok: true; user: UserRow } | { ok: false; reason: "email_taken" | "owner_exists" };

// Read by every authenticated request: compiled once.
const userById = preparedQuery<{ id: string }, UserRow>((db, p) =>
  db.selectFrom("users").selectAll().where("id", "=", p.id),
);

export class UserRepository {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async count(): Promise<number> {
    const row = await this.#db
      .selectFrom("users")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async findById(id: string): Promise<UserRow | undefined> {
    return (await userById(this.#db, { id })).rows[0];
  }

  findOwner(): Promise<UserRow | undefined> {
    return this.#db.selectFrom("users").selectAll().where("role", "=", "owner").executeTakeFirst();
  }

  findByEmail(email: string): Promise<UserRow | undefined> {
    return this.#db.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirst();
  }

  /** Inserts the user; with `onlyIfNone`, only while the table is empty (first-time setup). */
  async create(input: NewUser, options: { onlyIfNone?: boolean } = {}): Promise<CreateUserResult> {
    const now = nowIso();
    const row: UserRow = {
      id: randomUUID(),
      email: input.email,
      name: input.name,
      password_hash: input.passwordHash,
      role: input.role,
      created_at: now,
      updated_at: now,
    };
    try {
      return await this.#db.transaction().execute(async (tx) => {
        if (options.onlyIfNone) {
          const existing = await tx.selectFrom("users").select("id").limit(1).executeTakeFirst();
          if (existing) return { ok: false, reason: "owner_exists" } as const;
        }
        await tx.insertInto("users").values(row).execute();
        return { ok: true, user: row } as const;
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const taken = await this.findByEmail(input.email);
      return { ok: false, reason: taken ? "email_taken" : "owner_exists" };
    }
  }
}
