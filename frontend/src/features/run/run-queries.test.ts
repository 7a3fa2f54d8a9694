import { describe, expect, it } from "vitest";
import { joinSteps } from "./run-queries";
import type { RunStep } from "./run-types";

const step = (superstep: number, checkpointId: string | null): RunStep => ({
  superstep,
  checkpoint_id: checkpointId,
  created_at: checkpointId ? "2026-12-01T00:00:00.000Z" : null,
  nodes: [],
  state: checkpointId ? { at: superstep } : null,
});

describe("reading a run's supersteps a part at a time", () => {
  it("keeps the steps read before and adds the newer ones after them", () => {
    const joined = joinSteps([step(0, "a"), step(1, "b")], [step(2, "c"), step(3, null)]);
    expect(joined.map((s) => [s.superstep, s.checkpoint_id])).toEqual([
      [0, "a"],
      [1, "b"],
      [2, "c"],
      [3, null],
    ]);
  });

  it("does not list a checkpointed step twice when a read overlaps the steps already known", () => {
    const joined = joinSteps([step(0, "a"), step(1, "b")], [step(1, "b"), step(2, "c")]);
    expect(joined.map((s) => s.checkpoint_id)).toEqual(["a", "b", "c"]);
  });

  it("starts from nothing for a run not read before", () => {
    expect(joinSteps([], [step(0, "a"), step(1, null)]).map((s) => s.checkpoint_id)).toEqual(["a", null]);
  });
});
