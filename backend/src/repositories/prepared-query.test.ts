// On PostgreSQL the fixed query shapes run as named prepared statements (parsed and planned once
// per connection); other queries do not. On SQLite the dialect keeps its own statement cache.
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openTestDatabase, type TestDatabase } from "../../test/test-database.js";
import type { Database } from "../models/database.model.js";
import { preparedQuery } from "./prepared-query.js";

const namedStatements = async (connection: Kysely<Database>) =>
  (
    await sql<{
      statement: string;
    }>`select statement from pg_prepared_statements where name like 'superstep_%'`.execute(connection)
  ).rows.map((row) => row.statement);

describe.skipIf(inject("dbKind") !== "postgres")("prepared query shapes on PostgreSQL", () => {
  let database: TestDatabase;
  let unnamed: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
    unnamed = await openTestDatabase({ pgPreparedStatements: false });
  });
  afterAll(async () => {
    await database.drop();
    await unnamed.drop();
  });

  const userByEmail = preparedQuery<{ email: string }, { id: string }>((db, p) =>
    db.selectFrom("users").select("id").where("email", "=", p.email),
  );

  it("prepares a shape once per connection and reuses it, and leaves other queries unnamed", async () => {
    await database.db.connection().execute(async (connection) => {
      const prepared = () => namedStatements(connection);
      const before = await prepared();
      expect((await userByEmail(connection, { email: "nobody@example.com" })).rows).toEqual([]);
      expect((await userByEmail(connection, { email: "someone@example.com" })).rows).toEqual([]);
      const after = await prepared();
      const shape = after.filter((statement) => !before.includes(statement));
      expect(shape).toHaveLength(1);
      expect(shape[0]).toContain('from "users"');
      // A query that is not a shape (this one) is never named.
      expect(after.some((statement) => statement.includes("pg_prepared_statements"))).toBe(false);
    });
  });

  it("names nothing with STUDIO_PG_PREPARED_STATEMENTS off (a pooler in transaction mode)", async () => {
    await unnamed.db.connection().execute(async (connection) => {
      expect((await userByEmail(connection, { email: "nobody@example.com" })).rows).toEqual([]);
      expect((await userByEmail(connection, { email: "someone@example.com" })).rows).toEqual([]);
      expect(await namedStatements(connection)).toEqual([]);
    });
  });
});
