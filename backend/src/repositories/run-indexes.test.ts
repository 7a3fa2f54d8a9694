// The queries that run for every trigger and every sweep use indexes that skip runs waiting for a
// person and ended runs, so their cost does not grow with how many runs wait (or ever ran). The
// database's own query plan, over a table of many waiting and ended runs, says which index a query
// uses: on PostgreSQL the plan of the query prepared as the studio prepares it, which must hold
// for any values of its parameters (a partial index is usable only when the query's text implies
// its condition).
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

  /** A prepared statement's arguments as SQL literals: `(a, b)`, or nothing for none. */
  function argumentsOf(parameters: readonly unknown[]): string {
    const literal = (value: unknown): string => {
      if (value === null) return "null";
      if (typeof value === "number") return String(value);
      if (Array.isArray(value)) return `array[${value.map(literal).join(", ")}]`;
      return `'${String(value).replaceAll("'", "''")}'`;
    };
    return parameters.length === 0 ? "" : `(${parameters.map(literal).join(", ")})`;
  }

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
    // On an almost empty table PostgreSQL would scan it whole; asked not to, it shows the index it
    // can use. The generic plan is the one a prepared statement keeps using after its first runs.
    return database.db.transaction().execute(async (tx) => {
      await tx.executeQuery(CompiledQuery.raw("SET LOCAL enable_seqscan = off"));
      await tx.executeQuery(CompiledQuery.raw("SET LOCAL plan_cache_mode = force_generic_plan"));
      await tx.executeQuery(CompiledQuery.raw(`PREPARE plan_probe AS ${query.sql}`));
      const rows = await tx.executeQuery<{ "QUERY PLAN": string }>(
        CompiledQuery.raw(`EXPLAIN EXECUTE plan_probe${argumentsOf(query.parameters)}`),
      );
      await tx.executeQuery(CompiledQuery.raw("DEALLOCATE plan_probe"));
      return rows.rows.map((row) => row["QUERY PLAN"]).join("\n");
    });
  }

  it("finds overdue waits through the index of waiting runs", async () => {
    const plan = await planOf(() => runs.findOverdueWaits(new Date().toISOString()));
    expect(plan).toContain("runs_waiting_idx");
  });

  it("counts a user's queued and running runs through the index of active runs by owner", async () => {
    const plan = await planOf(() => runs.countActive("someone"));
    expect(plan).toContain("runs_owner_active_idx");
  });

  it("finds takeable runs through an index of active runs", async () => {
    const now = new Date().toISOString();
    expect(await planOf(() => runs.findTakeable(now))).toMatch(/runs_(owner_active|queued|running)_idx/);
    expect(await planOf(() => runs.findTakeable(now, { queuedBefore: now }))).toMatch(
      /runs_(owner_active|queued|running)_idx/,
    );
  });

  it("finds runs over their time through an index of active runs", async () => {
    const plan = await planOf(() => runs.findOverTime(new Date().toISOString()));
    expect(plan).toMatch(/runs_(owner_active|running)_idx/);
  });

  it("finds a trigger's earlier run by its idempotency key through the index of keyed runs", async () => {
    const plan = await planOf(() => runs.findByIdempotencyKey("someone", "workflow", "key"));
    expect(plan).toContain("runs_idempotency_idx");
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
