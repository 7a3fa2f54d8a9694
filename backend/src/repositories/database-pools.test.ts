// Requests and run execution do not share connections on PostgreSQL: a trigger's insert or a page
// of runs never waits in the pool's queue behind the queries of the runs under way.
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase } from "../../test/test-database.js";
import { POSTGRES_RUN_POOL_MAX } from "./database.js";

describe("the database's connections for requests and for runs", () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await openTestDatabase();
  });
  afterEach(() => database.drop());

  it("answers a request's query while run work holds every connection it has", async () => {
    if (database.kind === "sqlite") {
      // One connection, and no pool to queue in: run work and requests share it.
      expect(database.forRuns.db).toBe(database.db);
      expect(database.forRuns.writes).toBe(database.writes);
      return;
    }
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = 0;
    let allHeld!: () => void;
    const everyConnectionHeld = new Promise<void>((resolve) => {
      allHeld = resolve;
    });
    const holders = Array.from({ length: POSTGRES_RUN_POOL_MAX }, () =>
      database.forRuns.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        if (++holding === POSTGRES_RUN_POOL_MAX) allHeld();
        await released;
      }),
    );
    await everyConnectionHeld;
    // One more query of run work now waits for a connection of its pool…
    let runQueryDone = false;
    const runQuery = sql`select 1`.execute(database.forRuns.db).then(() => {
      runQueryDone = true;
    });
    // …while a request's query is answered.
    const answer = await sql<{ one: number }>`select 1 as one`.execute(database.db);
    expect(answer.rows[0]?.one).toBe(1);
    expect(runQueryDone).toBe(false);
    release();
    await Promise.all([...holders, runQuery]);
    expect(runQueryDone).toBe(true);
  });
});
