import { describe, expect, it } from "vitest";
import type { WorkflowDocument } from "../document";
import { buildOutline, visibleItems } from "./outline-model";

const document: WorkflowDocument = {
  name: "Outline",
  state: [],
  nodes: [
    { id: "a", type: "code", position: { x: 0, y: 0 }, data: {} },
    { id: "b", type: "code", position: { x: 0, y: 0 }, data: {} },
  ],
  edges: [
    { id: "e0", source: "start", target: "a" },
    { id: "e1", source: "a", target: "b" },
    { id: "e2", source: "b", target: "end" },
  ],
};

describe("outline model", () => {
  it("lists the implicit Start first and End last, each node with its outgoing edges", () => {
    const outline = buildOutline(document, { start: true, end: true });
    expect(outline.map((o) => [o.node.id, o.implicit, o.edges.map((e) => e.id)])).toEqual([
      ["start", true, ["e0"]],
      ["a", false, ["e1"]],
      ["b", false, ["e2"]],
      ["end", true, []],
    ]);
  });

  it("leaves out the edges of collapsed nodes", () => {
    const outline = buildOutline(document, { start: false, end: false });
    expect(visibleItems(outline, new Set()).map((i) => i.key)).toEqual(["n:a", "e:e1", "n:b", "e:e2"]);
    expect(visibleItems(outline, new Set(["a"])).map((i) => i.key)).toEqual(["n:a", "n:b", "e:e2"]);
  });
});
