// The queries that run for every trigger and every sweep use indexes that skip runs waiting for a
// person and ended runs, so their cost does not grow with how many runs wait (or ever ran). The
// database's own query plan, over a table of many waiting and ended runs, says which index a query
// uses.
import { randomUUID } from "node:crypto";
import { CompiledQuery, type Kysely, type KyselyPlugin, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { insertTestOwner, openTestDatabase, type TestDatabase } from "../../test/test-database.js";
import type { Database } from "../models/database.model.js";
import { fenceLeases, RunRepository } from "./run.repository.js";

describe("run queries and their indexes", () => {
  let database: TestDatabase;
  let runs: RunRepository;
  let capturing: Kysely<Database>;
  const captured: CompiledQuery[] = [];

  beforeAll(async () => {
    database = await openTestDatabase();
    // Records the SQL each repository call sends.
    const capture: KyselyPlugin = {
      transformQuery: ({ node, queryId }) => {
        captured.push(database.db.getExecutor().compileQuery(node, queryId));
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    capturing = database.db.withPlugin(capture);
    runs = new RunRepository(capturing);

    const ownerId = await insertTestOwner(database.db);
    const now = new Date().toISOString();
    const later = new Date(Date.now() + 86_400_000).toISOString();
    const row = (status: string) => ({
      id: randomUUID(),
      owner_id: ownerId,
      workflow_id: null,
      workflow_version: null,
      content_hash: "h",
      document: "{}",
      trigger: "api",
      mode: "full",
      status,
      input: "{}",
      context: "{}",
      state: "{}",
      waiting: status === "waiting" ? "{}" : null,
      expires_at: status === "waiting" ? later : null,
      lease_gen: 1,
      attempt: 1,
      next_seq: 4,
      created_at: now,
      updated_at: now,
    });
    for (let batch = 0; batch < 10; batch++)
      await database.db
        .insertInto("runs")
        .values(Array.from({ length: 200 }, (_, i) => row(i % 2 === 0 ? "waiting" : "ok")))
        .execute();
    await sql`analyze`.execute(database.db);
  });
  afterAll(() => database.drop());

  async function planOf(call: () => Promise<unknown>): Promise<string> {
    captured.length = 0;
    await call();
    const query = captured.at(-1) as CompiledQuery;
    if (inject("dbKind") === "sqlite") {
      const rows = await database.db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`EXPLAIN QUERY PLAN ${query.sql}`, [...query.parameters]),
      );
      return rows.rows.map((row) => row.detail).join("\n");
    }
    // On an almost empty table PostgreSQL would scan it whole; asked not to, it shows the index it can use.
    return database.db.transaction().execute(async (tx) => {
      await tx.executeQuery(CompiledQuery.raw("SET LOCAL enable_seqscan = off"));
      const rows = await tx.executeQuery<{ "QUERY PLAN": string }>(
        CompiledQuery.raw(`EXPLAIN ${query.sql}`, [...query.parameters]),
      );
      return rows.rows.map((row) => row["QUERY PLAN"]).join("\n");
    });
  }

  it("finds overdue waits through the index on status and expiry", async () => {
    const plan = await planOf(() => runs.findOverdueWaits(new Date().toISOString()));
    expect(plan).toContain("runs_wait_expiry_idx");
  });

  it("counts a user's queued and running runs through the index on owner and status", async () => {
    const plan = await planOf(() => runs.countActive("someone"));
    expect(plan).toContain("runs_owner_status_idx");
  });

  it.runIf(inject("dbKind") === "postgres")("checks a batch's leases through the primary key", async () => {
    const plan = await planOf(() =>
      fenceLeases(capturing, [
        { runId: randomUUID(), leaseGen: 1 },
        { runId: randomUUID(), leaseGen: 1 },
      ]),
    );
    expect(plan).toContain("Index Scan using runs_pkey");
  });
});
