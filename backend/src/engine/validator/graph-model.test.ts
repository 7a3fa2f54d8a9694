import { describe, expect, it } from "vitest";
import type { WorkflowDocument } from "../../schemas/workflow.schema.js";
import { buildGraphModel, reachableFrom, stronglyConnected } from "./graph-model.js";

const at = { x: 0, y: 0 };
const documentOf = (ids: string[], pairs: [string, string][]): WorkflowDocument => ({
  name: "g",
  state: [],
  nodes: ids.map((id) => ({ id, type: "code", position: at, data: {} })),
  edges: pairs.map(([source, target], i) => ({ id: `e${i}`, source, target })),
});
const sorted = (components: string[][]) => components.map((c) => c.slice().sort()).sort();

describe("graph model", () => {
  it("finds what is reachable, stopping at skipped nodes but not at the first one", () => {
    const model = buildGraphModel(
      documentOf(
        ["a", "b", "c", "d"],
        [
          ["start", "a"],
          ["a", "b"],
          ["b", "c"],
          ["d", "a"],
        ],
      ),
    );
    expect([...reachableFrom(model, "start")].sort()).toEqual(["a", "b", "c", "start"]);
    expect([...reachableFrom(model, "a", (id) => id === "b")].sort()).toEqual(["a", "b"]);
    expect([...reachableFrom(model, "b", (id) => id === "b")].sort()).toEqual(["b", "c"]);
  });

  it("finds strongly connected components among the included nodes", () => {
    const model = buildGraphModel(
      documentOf(
        ["a", "b", "c", "k", "x"],
        [
          ["start", "a"],
          ["a", "b"],
          ["b", "a"],
          ["b", "k"],
          ["k", "c"],
          ["c", "b"],
          ["x", "x"],
        ],
      ),
    );
    const loops = (include: (id: string) => boolean) =>
      sorted(stronglyConnected(model, include)).filter((c) => c.length > 1 || c[0] === "x");
    expect(loops(() => true)).toEqual([["a", "b", "c", "k"], ["x"]]);
    // Without k, only a ⇄ b remains a loop (and the self-loop on x).
    expect(loops((id) => id !== "k")).toEqual([["a", "b"], ["x"]]);
  });

  it("walks a hub with thousands of edges, and a 1,000-node cycle, without recursion", () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `n${i}`);
    const pairs: [string, string][] = [["start", "n0"]];
    for (let i = 0; i < 1000; i++) pairs.push([`n${i}`, `n${(i + 1) % 1000}`]);
    // n0 also points at every node (and at n1 many times): 4,000 more edges out of one node.
    for (let k = 0; k < 4; k++) for (let i = 0; i < 1000; i++) pairs.push(["n0", `n${i}`]);
    const model = buildGraphModel(documentOf(ids, pairs));
    const components = stronglyConnected(model, () => true);
    expect(components.find((c) => c.length > 1)?.length).toBe(1000);
    expect(reachableFrom(model, "start").size).toBe(1001);
    // Leaving n500 out: n0 and n501 … n999 still reach each other; n1 … n499 lead nowhere back.
    const broken = stronglyConnected(model, (id) => id !== "n500");
    expect(broken.filter((c) => c.length > 1).map((c) => c.length)).toEqual([500]);
  });
});
