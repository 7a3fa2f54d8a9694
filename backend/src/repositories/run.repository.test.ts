import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase } from "../../test/test-database.js";
import { RunRepository } from "./run.repository.js";

describe("run repository fencing", () => {
  let database: TestDatabase;
  let runs: RunRepository;
  let ownerId: string;

  beforeAll(async () => {
    database = await openTestDatabase();
    runs = new RunRepository(database.db);
    ownerId = randomUUID();
    const now = new Date().toISOString();
    await database.db
      .insertInto("users")
      .values({
        id: ownerId,
        email: "o@example.com",
        name: null,
        password_hash: "x",
        role: "owner",
        created_at: now,
        updated_at: now,
      })
      .execute();
  });
  afterAll(() => database.drop());

  const newRun = () =>
    runs.create({
      ownerId,
      workflowId: null,
      workflowVersion: null,
      contentHash: "h",
      document: "{}",
      trigger: "api",
      mode: "full",
      input: "{}",
      context: "{}",
      idempotencyKey: null,
      callbackUrl: null,
      apiKeyId: null,
    });
  const event = (seq: number) => ({
    seq,
    type: "node_started",
    node_id: "n",
    superstep: 1,
    ts: new Date().toISOString(),
    data: "{}",
  });
  const ending = {
    status: "ok",
    state: "{}",
    output: "{}",
    error: null,
    waiting: null,
    expiresAt: null,
    metrics: null,
    finished: true,
  };

  it("refuses every write of a lease holder that another worker replaced", async () => {
    const { run } = await newRun();
    const first = await runs.lease(run.id, "worker-a", 60_000);
    expect(first?.lease_gen).toBe(1);
    expect(await runs.appendEvents(run.id, 1, [event(1)])).toBe(true);

    const second = await runs.lease(run.id, "worker-b", 60_000);
    expect(second).toMatchObject({ lease_gen: 2, attempt: 2, lease_owner: "worker-b" });

    expect(await runs.appendEvents(run.id, 1, [event(2)])).toBe(false);
    expect(await runs.end(run.id, 1, ending)).toBe(false);
    const events = await runs.listEvents(run.id, 0, 10);
    expect(events.map((e) => e.seq)).toEqual([1]);
    expect((await runs.findById(run.id))?.status).toBe("running");

    expect(await runs.appendEvents(run.id, 2, [event(2)])).toBe(true);
    expect(await runs.end(run.id, 2, ending)).toBe(true);
    expect((await runs.findById(run.id))?.status).toBe("ok");
  });

  it("does not lease a run that has ended", async () => {
    const { run } = await newRun();
    await runs.transition(run.id, ["queued"], "cancelled");
    expect(await runs.lease(run.id, "worker-a", 60_000)).toBeUndefined();
  });
});
