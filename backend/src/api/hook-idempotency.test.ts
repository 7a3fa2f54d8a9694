// A retried trigger (same Idempotency-Key) gets the run the first call created, and is answered
// only once that run is on disk: the first call may still be waiting for the WAL sync, and the
// hook route does not wait for other writes before answering.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { edge } from "../../test/engine-harness.js";
import { type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";
import { RunRepository } from "../repositories/run.repository.js";

describe("a retried hook call", () => {
  let studio: TestStudio;
  let owner: Session;
  let key: { authorization: string };
  let workflowId: string;

  beforeAll(async () => {
    // The queue is not started: runs stay queued, and only the answers are under test.
    studio = await startTestStudio();
    owner = await setupOwner(studio);
    key = {
      authorization: `Bearer ${
        (
          await studio.app.inject({
            method: "POST",
            url: "/api/api-keys",
            headers: owner.auth,
            payload: { name: "hooks" },
          })
        ).json().data.key
      }`,
    };
    workflowId = (
      await studio.app.inject({
        method: "POST",
        url: "/api/workflows",
        headers: owner.auth,
        payload: { name: "quick", state: [{ name: "n", type: "number" }], nodes: [], edges: [edge("start", "end")] },
      })
    ).json().data.id;
  });
  afterAll(() => studio.close());

  const hook = (idempotencyKey: string) =>
    studio.app.inject({
      method: "POST",
      url: `/api/hooks/workflows/${workflowId}/runs`,
      headers: { ...key, "idempotency-key": idempotencyKey },
      payload: {},
    });

  it("gets the first call's run back", async () => {
    const first = await hook("order-1");
    expect(first.statusCode).toBe(202);
    const again = await Promise.all([hook("order-1"), hook("order-1")]);
    for (const answer of again) expect(answer.json().data.run_id).toBe(first.json().data.run_id);
    const stored = await studio.container.database.db
      .selectFrom("runs")
      .select("id")
      .where("idempotency_key", "=", "order-1")
      .execute();
    expect(stored).toHaveLength(1);
  });

  it.skipIf(inject("dbKind") !== "sqlite")(
    "is answered only once the run the first call committed is on disk",
    async () => {
      const { database } = studio.container;
      const durability = database.durability;
      if (!durability) throw new Error("the embedded database syncs its WAL itself");
      // The key's last use is recorded once a minute: a call now writes nothing of its own that
      // would wait for the disk on the retry's behalf.
      expect((await hook("warm-up")).statusCode).toBe(202);
      const runs = new RunRepository(database.db, { settled: () => database.settled(), writes: database.writes });
      const workflow = await database.db
        .selectFrom("workflows")
        .selectAll()
        .where("id", "=", workflowId)
        .executeTakeFirstOrThrow();
      let retry: Promise<{ runId: string; onDisk: boolean }> | undefined;
      let committedOnDisk: boolean | undefined;
      // The first call's insert, as the service makes it; the retry arrives the moment it has
      // committed, while its WAL sync has not even started.
      const first = await runs.create(
        {
          ownerId: owner.userId,
          workflowId,
          workflowVersion: workflow.version,
          contentHash: workflow.content_hash,
          document: workflow.document,
          trigger: "hook",
          mode: "full",
          input: "{}",
          context: "{}",
          idempotencyKey: "order-2",
          callbackUrl: null,
          apiKeyId: null,
        },
        {
          visible: () => {
            const mark = durability.mark;
            committedOnDisk = durability.isDurable(mark);
            retry = hook("order-2").then((answer) => ({
              runId: answer.json().data.run_id as string,
              onDisk: durability.isDurable(mark),
            }));
          },
        },
      );
      expect(committedOnDisk).toBe(false);
      if (!retry) throw new Error("the insert never committed");
      const answered = await retry;
      expect(answered.runId).toBe(first.run.id);
      expect(answered.onDisk).toBe(true);
    },
  );
});
