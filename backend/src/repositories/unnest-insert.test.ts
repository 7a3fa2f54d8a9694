import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { openTestDatabase, type TestDatabase } from "../../test/test-database.js";
import { insertUnnested, unnestInsert } from "./unnest-insert.js";

// Unnested arrays are PostgreSQL's: the embedded database inserts rows with VALUES lists.
const sqlite = inject("dbKind") === "sqlite";

interface Probe {
  k: string;
  n: number;
}

describe.skipIf(sqlite)("unnest insert", () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await openTestDatabase();
    await sql`create table probe_a (k text primary key, n integer not null)`.execute(database.db);
    await sql`create table probe_b (k text primary key, n integer not null)`.execute(database.db);
  });
  afterEach(() => database.drop());

  // The probe tables are not in the studio's schema.
  const table = (name: string) => name as never;
  const columns = [
    ["k", "text"],
    ["n", "integer"],
  ] as const;
  const intoA = unnestInsert<Probe>(table("probe_a"), columns, "on conflict (k) do update set n = excluded.n");
  const intoB = unnestInsert<Probe>(table("probe_b"), columns, "");
  const rowsOf = async (name: string) =>
    (await sql<Probe>`select k, n from ${sql.table(name)} order by k`.execute(database.db)).rows.map(
      (r) => `${r.k}=${r.n}`,
    );

  it("inserts any number of rows of one table, with its conflict rule", async () => {
    await intoA(database.db, [
      { k: "a", n: 1 },
      { k: "b", n: 2 },
    ]);
    await intoA(database.db, [{ k: "a", n: 3 }]);
    expect(await rowsOf("probe_a")).toEqual(["a=3", "b=2"]);
  });

  it("inserts the rows of several tables in one statement: all of them or, when one fails, none", async () => {
    await insertUnnested(database.db, [
      [intoA.target, [{ k: "a", n: 1 }]],
      [intoB.target, [{ k: "x", n: 1 }]],
    ]);
    expect(await rowsOf("probe_a")).toEqual(["a=1"]);
    expect(await rowsOf("probe_b")).toEqual(["x=1"]);
    // Outside any transaction: had each table's rows gone in a statement of its own, probe_a's
    // would stay. probe_b has no conflict rule, so its taken key fails the whole statement.
    await expect(
      insertUnnested(database.db, [
        [
          intoA.target,
          [
            { k: "a", n: 2 },
            { k: "c", n: 1 },
          ],
        ],
        [intoB.target, [{ k: "x", n: 2 }]],
      ]),
    ).rejects.toThrow(/duplicate key/);
    expect(await rowsOf("probe_a")).toEqual(["a=1"]);
    expect(await rowsOf("probe_b")).toEqual(["x=1"]);
  });

  it("puts each table's rows in their own table whatever order the tables come in", async () => {
    await insertUnnested(database.db, [
      [intoB.target, [{ k: "b1", n: 1 }]],
      [intoA.target, [{ k: "a1", n: 2 }]],
    ]);
    await insertUnnested(database.db, [
      [intoA.target, [{ k: "a2", n: 3 }]],
      [intoB.target, [{ k: "b2", n: 4 }]],
    ]);
    expect(await rowsOf("probe_a")).toEqual(["a1=2", "a2=3"]);
    expect(await rowsOf("probe_b")).toEqual(["b1=1", "b2=4"]);
  });

  it("takes a target with no rows in a statement with others", async () => {
    await insertUnnested(database.db, [
      [intoB.target, []],
      [intoA.target, [{ k: "a", n: 1 }]],
    ]);
    expect(await rowsOf("probe_a")).toEqual(["a=1"]);
    expect(await rowsOf("probe_b")).toEqual([]);
  });
});
