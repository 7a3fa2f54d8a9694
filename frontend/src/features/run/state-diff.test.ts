import { describe, expect, it } from "vitest";
import { applyEvents, createTrace } from "./run-trace";
import type { RunEvent, RunStep } from "./run-types";
import { stateChanges } from "./state-diff";

const step = (superstep: number, state: Record<string, unknown> | null, nodes: string[] = []): RunStep => ({
  superstep,
  checkpoint_id: state ? `cp-${superstep}` : null,
  created_at: null,
  nodes: nodes.map((node_id) => ({ node_id, status: "ok", reused: false, iteration: "0" })),
  state,
});

let seq = 0;
const event = (type: RunEvent["type"], node_id: string, superstep: number, data: Record<string, unknown> = {}) =>
  ({ run_id: "r", seq: ++seq, ts: "2026-12-01T00:00:00.000Z", type, node_id, superstep, data }) as RunEvent;

describe("state changes per superstep", () => {
  it("lists each changed field with its value before and after, its reducer and the nodes that wrote it", () => {
    const trace = createTrace("r");
    applyEvents(trace, [
      event("node_started", "a", 1),
      event("node_started", "b", 1),
      event("node_finished", "a", 1, { output: { log: ["a"] } }),
      event("node_finished", "b", 1, { output: { log: ["b"], total: 2 } }),
    ]);
    const reducers = new Map([["log", "append"]]);
    const changes = stateChanges(
      [step(0, { log: [], total: 0, name: "x" }), step(1, { log: ["a", "b"], total: 2, name: "x" }, ["a", "b"])],
      reducers,
      trace,
    );
    expect(changes[0]?.changes.map((c) => c.field)).toEqual(["log", "total", "name"]);
    expect(changes[1]?.changes).toEqual([
      { field: "log", before: [], after: ["a", "b"], reducer: "append", writers: ["a", "b"] },
      { field: "total", before: 0, after: 2, reducer: "replace", writers: ["b"] },
    ]);
  });

  it("keeps a failed superstep without a checkpoint and diffs the next one against the last state", () => {
    const changes = stateChanges([step(0, { n: 1 }), step(1, null, ["bad"]), step(2, { n: 3 })], new Map(), null);
    expect(changes[1]).toMatchObject({ checkpointId: null, changes: [], nodes: ["bad"] });
    expect(changes[2]?.changes).toEqual([{ field: "n", before: 1, after: 3, reducer: "replace", writers: [] }]);
  });
});
