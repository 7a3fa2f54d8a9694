import { describe, expect, it } from "vitest";
import { applyEvents, createTrace, iterationIndex, nodeBadge, traceGraph } from "./run-trace";
import type { RunEvent } from "./run-types";

function events() {
  let seq = 0;
  return (type: RunEvent["type"], node_id?: string, superstep?: number, data: Record<string, unknown> = {}) =>
    ({
      run_id: "r",
      seq: ++seq,
      ts: new Date(Date.UTC(2026, 11, 1, 0, 0, seq)).toISOString(),
      type,
      node_id,
      superstep,
      data,
    }) as RunEvent;
}

const edges = [
  { id: "e1", source: "start", target: "route" },
  { id: "urgent", source: "route", target: "ask", label: "urgent" },
  { id: "normal", source: "route", target: "draft", label: "normal" },
  { id: "e4", source: "ask", target: "draft" },
  { id: "e5", source: "draft", target: "end" },
];

describe("run trace", () => {
  it("shows each node's status, duration, output and the edges the run took by the label a Condition chose", () => {
    const e = events();
    const trace = createTrace("r");
    const graph = traceGraph(edges, [
      { id: "start", type: "start" },
      { id: "end", type: "end" },
    ]);
    applyEvents(
      trace,
      [
        e("run_started"),
        e("node_started", "route", 1, { node_type: "condition", iteration: "0" }),
        e("node_finished", "route", 1, { output: {}, duration_ms: 2, iteration: "0", route: "normal" }),
        e("node_started", "draft", 2, { node_type: "code", iteration: "0" }),
        e("node_finished", "draft", 2, { output: { reply: "hi" }, duration_ms: 30, iteration: "0" }),
        e("run_finished", undefined, undefined, { status: "ok", state: { reply: "hi" }, output: { reply: "hi" } }),
      ],
      graph,
    );
    expect(trace.status).toBe("ok");
    expect(trace.latest.get("draft")).toMatchObject({ status: "ok", durationMs: 30, output: { reply: "hi" } });
    expect([...trace.takenEdges].sort()).toEqual(["e1", "e5", "normal"]);
    expect(nodeBadge(trace, "ask")).toBe("skipped");
    // Start and End send no events of their own.
    expect(nodeBadge(trace, "start", "start")).toBe("ok");
    expect(nodeBadge(trace, "end", "end")).toBe("ok");
    expect(trace.supersteps.map((s) => [s.superstep, s.visits.length])).toEqual([
      [1, 1],
      [2, 1],
    ]);
    expect(trace.finalState).toEqual({ reply: "hi" });
  });

  it("ignores an event it already has (a reconnect that overlaps) and applies late ones in seq order", () => {
    const e = events();
    const started = e("node_started", "a", 1, { iteration: "0" });
    const token1 = e("node_token", "a", 1, { text: "Hel" });
    const token2 = e("node_token", "a", 1, { text: "lo" });
    const trace = createTrace("r");
    expect(applyEvents(trace, [started, token2, token1])).toBe(true);
    expect(applyEvents(trace, [token1, token2])).toBe(false);
    expect(trace.latest.get("a")?.tokens).toBe("Hello");
    expect(trace.lastSeq).toBe(3);
    expect(trace.revision).toBe(1);
  });

  it("marks a node waiting at its form and running again on the same visit when the run resumes", () => {
    const e = events();
    const trace = createTrace("r");
    applyEvents(trace, [
      e("node_started", "ask", 1, { iteration: "0" }),
      e("run_waiting", "ask", undefined, { node_id: "ask", message: "ok?", fields: [], timeout_seconds: null }),
    ]);
    expect(trace.status).toBe("waiting");
    expect(nodeBadge(trace, "ask")).toBe("waiting");
    expect(trace.waiting?.message).toBe("ok?");
    applyEvents(trace, [
      e("run_started"),
      e("node_started", "ask", 1, { iteration: "0" }),
      e("node_finished", "ask", 1, { output: { approval: { ok: true } }, iteration: "0" }),
    ]);
    expect(trace.visits).toHaveLength(1);
    expect(nodeBadge(trace, "ask")).toBe("ok");
    expect(trace.waiting).toBeNull();
  });

  it("tells reused and pinned results apart from executed ones, and keeps each For each iteration", () => {
    const e = events();
    const trace = createTrace("r");
    applyEvents(trace, [
      e("node_started", "llm", 1, { iteration: "0" }),
      e("node_finished", "llm", 1, { output: { a: 1 }, reused: true, iteration: "0" }),
      e("node_started", "body", 2, { iteration: "0.0" }),
      e("node_started", "body", 2, { iteration: "0.1" }),
      e("node_finished", "body", 2, { output: { v: 0 }, iteration: "0.0" }),
      e("error", "body", 2, { error: { code: "CODE_NODE_FAILED", message: "boom" } }),
      e("node_started", "pin", 3, { iteration: "0" }),
      e("node_finished", "pin", 3, { output: { p: 1 }, pinned: true, iteration: "0" }),
    ]);
    expect(nodeBadge(trace, "llm")).toBe("reused");
    expect(nodeBadge(trace, "pin")).toBe("pinned");
    expect(trace.visits.filter((v) => v.nodeId === "body").map((v) => [v.iteration, v.status])).toEqual([
      ["0.0", "ok"],
      ["0.1", "error"],
    ]);
    expect(trace.error).toEqual({ code: "CODE_NODE_FAILED", message: "boom" });
  });

  it("keeps each For each iteration's item as its input, and its index", () => {
    const e = events();
    const trace = createTrace("r");
    applyEvents(trace, [
      e("node_started", "body", 2, { iteration: "0.0", item: { n: 1 } }),
      e("node_started", "body", 2, { iteration: "0.1", item: null }),
      e("node_started", "after", 3, { iteration: "0" }),
    ]);
    expect(trace.visits.map((v) => [v.nodeId, iterationIndex(v), "item" in v ? v.item : "none"])).toEqual([
      ["body", 0, { n: 1 }],
      ["body", 1, null],
      ["after", null, "none"],
    ]);
  });

  it("marks the failed For each iteration by its iteration, and those cut short as stopped, not failed", () => {
    const e = events();
    const trace = createTrace("r");
    applyEvents(trace, [
      e("node_started", "body", 2, { iteration: "0.0" }),
      e("node_started", "body", 2, { iteration: "0.1" }),
      e("node_started", "body", 2, { iteration: "0.2" }),
      e("node_finished", "body", 2, { output: { v: 0 }, iteration: "0.0" }),
      e("error", "body", 2, { error: { code: "CODE_NODE_FAILED", message: "boom" }, iteration: "0.1" }),
      e("run_finished", undefined, undefined, {
        status: "error",
        error: { code: "CODE_NODE_FAILED", message: "boom" },
      }),
    ]);
    expect(trace.visits.map((v) => [v.iteration, v.status])).toEqual([
      ["0.0", "ok"],
      ["0.1", "error"],
      ["0.2", "stopped"],
    ]);
    expect(nodeBadge(trace, "body")).toBe("error");
  });

  it("ends the visits still open when a run is cancelled", () => {
    const e = events();
    const trace = createTrace("r");
    applyEvents(trace, [
      e("node_started", "slow", 1, { iteration: "0" }),
      e("run_finished", undefined, undefined, { status: "cancelled", error: { code: "RUN_CANCELLED", message: "" } }),
    ]);
    expect(trace.status).toBe("cancelled");
    expect(nodeBadge(trace, "slow")).toBe("stopped");
    expect(nodeBadge(trace, "other")).toBeNull();
  });

  it("ignores events of another run", () => {
    const trace = createTrace("r");
    expect(applyEvents(trace, [{ run_id: "other", seq: 1, ts: "", type: "run_started", data: {} } as RunEvent])).toBe(
      false,
    );
    expect(trace.status).toBe("queued");
  });
});
