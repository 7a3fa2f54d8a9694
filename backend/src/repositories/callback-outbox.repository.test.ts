import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertTestOwner, openTestDatabase, type TestDatabase, testRunInput } from "../../test/test-database.js";
import { CallbackOutboxRepository } from "./callback-outbox.repository.js";
import { RunRepository } from "./run.repository.js";

describe("callback outbox", () => {
  let database: TestDatabase;
  let runs: RunRepository;
  let outbox: CallbackOutboxRepository;
  let ownerId: string;

  beforeAll(async () => {
    database = await openTestDatabase();
    runs = new RunRepository(database.db);
    outbox = new CallbackOutboxRepository(database.db);
    ownerId = await insertTestOwner(database.db);
  });
  afterAll(() => database.drop());

  const newRun = async (callbackUrl: string | null) => (await runs.create(testRunInput(ownerId, { callbackUrl }))).run;
  const ending = (status: string, finished: boolean) => ({
    status,
    state: "{}",
    output: "{}",
    error: null,
    waiting: null,
    expiresAt: null,
    metrics: null,
    finished,
  });
  const at = (ms: number) => new Date(Date.now() + ms).toISOString();

  it("queues the callback with the run's ending, once, and only for a final ending with a URL", async () => {
    const withUrl = await newRun("https://example.com/hook");
    const leased = await runs.lease(withUrl.id, "worker", 60_000);
    expect(await runs.end(withUrl.id, leased?.lease_gen as number, ending("waiting", false))).toBe(true);
    expect(await outbox.find(withUrl.id)).toBeUndefined();
    await runs.transition(withUrl.id, ["waiting"], "queued", { pendingResume: "{}" });
    const again = await runs.lease(withUrl.id, "worker", 60_000);
    expect(await runs.end(withUrl.id, again?.lease_gen as number, ending("ok", true))).toBe(true);
    expect(await outbox.find(withUrl.id)).toMatchObject({
      url: "https://example.com/hook",
      status: "pending",
      attempts: 0,
      claimed_by: null,
    });

    const cancelled = await newRun("https://example.com/cancelled");
    await runs.transition(cancelled.id, ["queued"], "cancelled");
    expect(await outbox.find(cancelled.id)).toMatchObject({ status: "pending", attempts: 0 });
    // A second ending of the same run (it cannot happen, but the row is kept once anyway).
    await database.db.updateTable("runs").set({ status: "running" }).where("id", "=", cancelled.id).execute();
    await runs.transition(cancelled.id, ["running"], "timeout");
    const rows = await database.db
      .selectFrom("callback_outbox")
      .select("run_id")
      .where("run_id", "=", cancelled.id)
      .execute();
    expect(rows).toHaveLength(1);

    const withoutUrl = await newRun(null);
    await runs.transition(withoutUrl.id, ["queued"], "cancelled");
    expect(await outbox.find(withoutUrl.id)).toBeUndefined();
  });

  it("lets one of two servers claim a due delivery, and fences the other's record", async () => {
    const run = await newRun("https://example.com/race");
    await runs.transition(run.id, ["queued"], "cancelled");
    const now = at(0);
    const claims = await Promise.all([
      outbox.claim(run.id, "server-a", now, at(30_000)),
      outbox.claim(run.id, "server-b", now, at(30_000)),
    ]);
    const won = claims.filter((c) => c !== undefined);
    expect(won).toHaveLength(1);
    const delivery = won[0] as NonNullable<(typeof claims)[number]>;
    expect(delivery.attempt).toBe(1);
    expect(await outbox.due(at(1000), 10)).not.toContain(run.id);

    const retryAt = at(60_000);
    const forged = { ...delivery, claim: "server-x:not-the-claim" };
    expect(await outbox.finishAttempt(forged, { statusCode: 500, error: null }, { kind: "retry", at: retryAt })).toBe(
      false,
    );
    expect(await outbox.finishAttempt(delivery, { statusCode: 500, error: null }, { kind: "retry", at: retryAt })).toBe(
      true,
    );
    expect(await outbox.find(run.id)).toMatchObject({ status: "pending", attempts: 1, next_attempt_at: retryAt });
    expect(await outbox.claim(run.id, "server-b", at(1000), at(31_000))).toBeUndefined();
    expect(await outbox.due(at(59_000), 10)).not.toContain(run.id);
    expect(await outbox.due(at(61_000), 10)).toContain(run.id);

    const second = await outbox.claim(run.id, "server-b", at(61_000), at(91_000));
    expect(second?.attempt).toBe(2);
    expect(
      await outbox.finishAttempt(
        second as NonNullable<typeof second>,
        { statusCode: 200, error: null },
        {
          kind: "delivered",
        },
      ),
    ).toBe(true);
    expect(await outbox.find(run.id)).toMatchObject({ status: "delivered", attempts: 2, claimed_by: null });
    const attempts = await database.db
      .selectFrom("callback_deliveries")
      .select(["attempt", "status_code"])
      .where("run_id", "=", run.id)
      .orderBy("attempt")
      .execute();
    expect(attempts).toEqual([
      { attempt: 1, status_code: 500 },
      { attempt: 2, status_code: 200 },
    ]);
  });

  it("lets another server take over a claim that lapsed (its server died mid-attempt)", async () => {
    // Only this test's row is pending.
    await database.db.updateTable("callback_outbox").set({ status: "delivered" }).execute();
    const run = await newRun("https://example.com/lapsed");
    await runs.transition(run.id, ["queued"], "cancelled");
    const until = at(30_000);
    const dead = await outbox.claim(run.id, "server-a", at(0), until);
    expect(dead?.attempt).toBe(1);
    expect(await outbox.claim(run.id, "server-b", at(29_000), at(59_000))).toBeUndefined();
    // The next due time counts the claim: nobody spins on a row that another server holds.
    expect(await outbox.nextDueAt()).toBe(until);
    const takeover = await outbox.claim(run.id, "server-b", at(31_000), at(61_000));
    expect(takeover?.attempt).toBe(1);
    expect(
      await outbox.finishAttempt(
        dead as NonNullable<typeof dead>,
        { statusCode: null, error: "x" },
        {
          kind: "failed",
        },
      ),
    ).toBe(false);
    expect(
      await outbox.finishAttempt(
        takeover as NonNullable<typeof takeover>,
        { statusCode: 204, error: null },
        {
          kind: "delivered",
        },
      ),
    ).toBe(true);
  });
});
