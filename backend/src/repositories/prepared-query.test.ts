// On PostgreSQL the fixed query shapes run as named prepared statements (parsed and planned once
// per connection); other queries do not. On SQLite the dialect keeps its own statement cache.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openTestDatabase, type TestDatabase } from "../../test/test-database.js";
import { preparedQuery } from "./prepared-query.js";

describe.skipIf(inject("dbKind") !== "postgres")("prepared query shapes on PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(() => database.close());

  const userByEmail = preparedQuery<{ email: string }, { id: string }>((db, p) =>
    db.selectFrom("users").select("id").where("email", "=", p.email),
  );

  it("prepares a shape once per connection and reuses it, and leaves other queries unnamed", async () => {
    await database.db.connection().execute(async (connection) => {
      const prepared = async () =>
        (
          await sql<{
            statement: string;
          }>`select statement from pg_prepared_statements where name like 'superstep_%'`.execute(connection)
        ).rows.map((row) => row.statement);
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
});
