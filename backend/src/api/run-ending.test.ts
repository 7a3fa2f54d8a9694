// The event that announces how a run's turn ended (run_waiting, run_paused, run_finished) is
// recorded with the run's row: a client that acts on it at once finds the run already saying so.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalWorkflow, edge } from "../../test/engine-harness.js";
import { type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";
import type { Actor } from "../core/authz.js";
import type { StudioEvent } from "../engine/runtime/events.js";

describe("run endings and their events", () => {
  let studio: TestStudio;
  let owner: Session;
  let actor: Actor;

  beforeAll(async () => {
    studio = await startTestStudio();
    await studio.container.runs.start(60_000);
    owner = await setupOwner(studio);
    actor = { userId: owner.userId, role: "owner", via: "session" };
  });
  afterAll(() => studio.close());

  /** Starts a run of `document` and calls `onEnding` the instant its ending event is published. */
  async function actOnEnding<T>(document: object, mode: "full" | "step", onEnding: (event: StudioEvent) => Promise<T>) {
    const run = await studio.container.runs.createForDocument(actor, document, { mode }, "api");
    const acted = new Promise<T>((resolve, reject) => {
      const stop = studio.container.bus.subscribe(run.id, (event) => {
        if (!["run_waiting", "run_paused", "run_finished"].includes(event.type)) return;
        stop();
        onEnding(event).then(resolve, reject);
      });
    });
    await studio.container.runs.executeNow(run.id);
    return { runId: run.id, acted: await acted };
  }

  it("accepts an answer sent the moment run_waiting is seen", async () => {
    const { runId, acted } = await actOnEnding(approvalWorkflow(), "full", async (event) =>
      studio.container.runs.resume(actor, event.run_id, { ok: true }),
    );
    expect(acted.status).toBe("queued");
    await studio.container.runs.idle();
    expect((await studio.container.runs.get(actor, runId)).status).toBe("ok");
  });

  it("shows the final status to a read made the moment run_finished is seen", async () => {
    const quick = { name: "quick", state: [{ name: "n", type: "number" }], nodes: [], edges: [edge("start", "end")] };
    const { runId, acted } = await actOnEnding(quick, "full", async (event) =>
      studio.container.runs.get(actor, event.run_id),
    );
    expect(acted).toMatchObject({ id: runId, status: "ok" });
    const events = await studio.container.runs.events(actor, runId, 0, 100);
    expect(events.at(-1)).toMatchObject({ type: "run_finished", seq: events.length });
  });

  it("accepts continue sent the moment run_paused is seen", async () => {
    const two = {
      name: "two steps",
      state: [{ name: "n", type: "number", reducer: "add" }],
      nodes: [
        {
          id: "a",
          type: "code",
          position: { x: 0, y: 0 },
          data: { language: "javascript", code: "function main() { return { n: 1 }; }" },
        },
        {
          id: "b",
          type: "code",
          position: { x: 0, y: 0 },
          data: { language: "javascript", code: "function main() { return { n: 1 }; }" },
        },
      ],
      edges: [edge("start", "a"), edge("a", "b")],
    };
    const { acted } = await actOnEnding(two, "step", async (event) =>
      studio.container.runs.continue(actor, event.run_id, "caller"),
    );
    expect(acted.status).toBe("queued");
  });
});
