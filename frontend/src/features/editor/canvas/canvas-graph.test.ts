import { describe, expect, it } from "vitest";
import type { WorkflowEdge, WorkflowNode } from "../document";
import { edgeSourceHandle, edgesBySource, handleLabel, reachable, sourceHandles } from "./canvas-graph";

const condition: WorkflowNode = {
  id: "check",
  type: "condition",
  position: { x: 0, y: 0 },
  data: { rules: [{ label: "high", conditions: [] }], default_label: "else" },
};
const edge = (id: string, source: string, target: string, label?: string): WorkflowEdge => ({
  id,
  source,
  target,
  ...(label ? { label } : {}),
});

describe("canvas graph helpers", () => {
  it("give a Condition one labelled handle per label of its settings, in order", () => {
    expect(sourceHandles(condition, [])).toEqual([
      { id: "label:high", label: "high" },
      { id: "label:else", label: "else" },
    ]);
  });

  it("keep a handle for a label an edge still uses after the settings dropped it, and for unlabelled edges", () => {
    const out = [edge("a", "check", "x", "gone"), edge("b", "check", "y")];
    expect(sourceHandles(condition, out)).toEqual([
      { id: "label:high", label: "high" },
      { id: "label:else", label: "else" },
      { id: "label:gone", label: "gone", stale: true },
      { id: "out" },
    ]);
  });

  it("give ordinary nodes one plain handle and End none", () => {
    expect(sourceHandles({ id: "c", type: "code", data: {} }, [])).toEqual([{ id: "out" }]);
    expect(sourceHandles({ id: "end", type: "end", data: {} }, [])).toEqual([]);
  });

  it("map an edge to the handle it leaves from", () => {
    const handles = sourceHandles(condition, []);
    expect(edgeSourceHandle(edge("a", "check", "x", "else"), handles)).toBe("label:else");
    expect(edgeSourceHandle(edge("a", "c", "x"), [{ id: "out" }])).toBe("out");
    expect(handleLabel("label:urgent")).toBe("urgent");
    expect(handleLabel("out")).toBeUndefined();
    expect(handleLabel(null)).toBeUndefined();
  });

  it("find everything upstream and downstream of a selection, cycles included", () => {
    const edges = [
      edge("1", "a", "b"),
      edge("2", "b", "c"),
      edge("3", "c", "b"),
      edge("4", "x", "c"),
      edge("5", "c", "d"),
    ];
    expect([...reachable(edges, ["b"], "downstream")].sort()).toEqual(["b", "c", "d"]);
    expect([...reachable(edges, ["c"], "upstream")].sort()).toEqual(["a", "b", "c", "x"]);
    expect([...reachable(edges, ["d"], "downstream")]).toEqual(["d"]);
    expect(
      edgesBySource(edges)
        .get("c")
        ?.map((e) => e.id),
    ).toEqual(["3", "5"]);
  });
});
