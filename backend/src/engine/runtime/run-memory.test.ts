// What an ended run leaves behind in the process: a server runs millions of them, so nothing of a
// run may outlive its call. Counted with async hooks (timers created and not yet cleared), never
// with time or bytes.
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { at, collect, edge, engineConfig, httpTool, startReceiver } from "../../../test/engine-harness.js";
import { liveObjects } from "../../../test/live-objects.js";
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

  // LangGraph's Pregel.stream() adds an abort listener to the signal it is given and never removes
  // it. The run's signal was AbortSignal.any() of the timeout, the state limit and the caller's
  // signal, which Node keeps in a process-wide set while it has a listener and a live source: every
  // ended run kept it, and LangGraph's controllers, for as long as the caller's signal lived.
  it("leaves no abort signal alive when the caller's signal lives on", async () => {
    const caller = new AbortController(); // one for many runs, as the CLI's session has
    const engine = engineConfig();
    const runAll = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const { outcome } = await collect(runStream(workflow, {}, { engine, signal: caller.signal }));
        expect(outcome.status).toBe("ok");
      }
    };
    await runAll(3); // what is made once (the compiled graph) is made here
    const before = liveObjects(AbortSignal);
    const runs = 20;
    await runAll(runs);
    const after = liveObjects(AbortSignal);
    // Nothing per run (what else the test process is doing may hold a signal or two at a count);
    // AbortSignal.any() left more than two per run.
    expect(after - before).toBeLessThan(runs / 4);
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
  });

  it("leaves no timer behind after an HTTP tool call: the call's timeout is cleared when it ends", async () => {
    // AbortSignal.timeout() kept a timer, and the call's signals with what the request's
    // listeners hold, until the timeout passed (a minute here, for every call).
    const receiver = await startReceiver();
    try {
      const calling = {
        name: "call out",
        state: [{ name: "reply", type: "object" }],
        nodes: [httpTool("call", `${receiver.url}/hook`, "reply", { timeout_ms: 60_000 })],
        edges: [edge("start", "call"), edge("call", "end")],
      };
      const engine = engineConfig();
      const left = await timersLeftBy(60_000, async () => {
        for (let i = 0; i < 3; i++) {
          const { outcome } = await collect(runStream(calling, {}, { engine }));
          expect(outcome.status).toBe("ok");
        }
      });
      expect(receiver.requests).toHaveLength(3);
      expect(left).toBe(0);
    } finally {
      await receiver.close();
    }
  });
});
