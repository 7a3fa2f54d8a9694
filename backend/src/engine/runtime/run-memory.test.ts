// What an ended run leaves behind in the process: a server runs millions of them, so nothing of a
// run may outlive its call. Counted with async hooks (timers created and not yet cleared), never
// with time or bytes.
import { describe, expect, it } from "vitest";
import { at, collect, edge, engineConfig } from "../../../test/engine-harness.js";
import { timersLeftBy } from "../../../test/pending-timers.js";
import { runStream } from "./runtime.js";

const workflow = {
  name: "two steps",
  state: [{ name: "n", type: "number", default: 1 }],
  nodes: [
    { id: "a", type: "condition", position: at, data: { rules: [], default_label: "next" } },
    { id: "b", type: "condition", position: at, data: { rules: [], default_label: "next" } },
  ],
  edges: [edge("start", "a"), edge("a", "b", "next"), edge("b", "end", "next")],
};

describe("an ended run", () => {
  it("leaves no timer behind: the run timeout's timer is cleared when the call ends", async () => {
    // A pending run-timeout timer held each ended run's signals (and LangGraph's listeners on
    // them) for the whole STUDIO_RUN_TIMEOUT.
    const engine = { ...engineConfig(), runTimeoutMs: 3_600_000 };
    const left = await timersLeftBy(60_000, async () => {
      for (let i = 0; i < 5; i++) {
        const { outcome } = await collect(runStream(workflow, {}, { engine, runId: `run-${i}` }));
        expect(outcome.status).toBe("ok");
      }
    });
    expect(left).toBe(0);
  });

  it("clears it too when the run fails, and when the caller stops reading early", async () => {
    const engine = { ...engineConfig(), runTimeoutMs: 3_600_000 };
    const left = await timersLeftBy(60_000, async () => {
      const broken = { ...workflow, edges: [edge("start", "a"), edge("a", "missing", "next")] };
      await expect(collect(runStream(broken, {}, { engine }))).rejects.toMatchObject({ code: "WORKFLOW_INVALID" });
      const stream = runStream(workflow, {}, { engine });
      await stream.next();
      await stream.return(undefined as never);
    });
    expect(left).toBe(0);
  });
});
