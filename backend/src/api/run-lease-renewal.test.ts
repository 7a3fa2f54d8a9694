// A worker renews its lease while the run executes; when a renewal finds the run taken by another
// worker, it stops the run here (LEASE_LOST) and writes nothing more.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gate, gatedWorkflow, startGate } from "../../test/engine-harness.js";
import { until } from "../../test/studio-api.js";
import { setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";
import { RunRepository } from "../repositories/run.repository.js";

describe("lease renewal", () => {
  const lines: { msg: string; runId?: string }[] = [];
  let studio: TestStudio;
  let gate: Gate;

  beforeAll(async () => {
    gate = await startGate();
    studio = await startTestStudio(
      { STUDIO_EGRESS_ALLOW: "127.0.0.1", STUDIO_LOG_LEVEL: "info", STUDIO_RUN_LEASE_TTL: "1" },
      { logTo: { write: (line: string) => void lines.push(JSON.parse(line)) } },
    );
    // The sweeper stays out of the way: this test is about the worker's own renewals.
    await studio.container.runs.start(3_600_000);
  });
  afterAll(async () => {
    await gate.close();
    await studio.close();
  });

  it("keeps a live lease, and stops without writing once another worker took the run", async () => {
    const owner = await setupOwner(studio);
    const actor = { userId: owner.userId, role: "owner" as const, via: "session" as const };
    const workflowId = (
      await studio.app.inject({
        method: "POST",
        url: "/api/workflows",
        headers: owner.auth,
        payload: gatedWorkflow(gate.url, "held"),
      })
    ).json().data.id as string;
    const { run } = await studio.container.runs.trigger(actor, workflowId, {}, { trigger: "editor" });
    await gate.arrived(1);
    const { db } = studio.container.database;
    const leaseOf = () =>
      db
        .selectFrom("runs")
        .select(["status", "lease_gen", "lease_owner", "lease_expires_at"])
        .where("id", "=", run.id)
        .executeTakeFirstOrThrow();
    const first = await leaseOf();
    expect(first).toMatchObject({ status: "running", lease_gen: 1 });
    // Renewed every third of the 1 s TTL while the call is held.
    await until("a renewal", async () => {
      const now = await leaseOf();
      return String(now.lease_expires_at) > String(first.lease_expires_at) ? now : undefined;
    });

    // Another worker, whose clock says the lease has expired, takes the run over.
    const current = await leaseOf();
    const takeover = await new RunRepository(db).lease(
      run.id,
      "other-worker",
      3_600_000,
      new Date(Date.parse(String(current.lease_expires_at)) + 1),
    );
    expect(takeover?.lease_gen).toBe(2);
    const eventsBefore = await studio.container.runs.events(actor, run.id, 0, 100);

    // The first worker's next renewal is refused: it stops here.
    await studio.container.runs.idle();
    const lost = lines.find((l) => l.runId === run.id && l.msg.startsWith("lease lost"));
    expect(lost).toBeDefined();
    expect(await leaseOf()).toMatchObject({
      status: "running",
      lease_gen: 2,
      lease_owner: "other-worker",
      lease_expires_at: takeover?.lease_expires_at,
    });
    const eventsAfter = await studio.container.runs.events(actor, run.id, 0, 100);
    expect(eventsAfter).toEqual(eventsBefore);
    expect(eventsAfter.map((e) => e.type)).not.toContain("run_finished");
  });
});
