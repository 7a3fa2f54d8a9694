import { describe, expect, it } from "vitest";
import { createDocumentStore } from "../document";
import { chainOfNodes } from "../document/document.fixtures";
import { canvasInputs, describeEdge } from "./canvas.fixtures";
import { buildEdges, buildNodes, type FlowEdge, type FlowNode } from "./canvas-elements";

const DOC = {
  name: "Elements",
  state: [],
  nodes: [
    { id: "a", type: "code", position: { x: 0, y: 0 }, data: {} },
    { id: "b", type: "code", position: { x: 300, y: 0 }, data: {} },
  ],
  edges: [{ id: "e1", source: "a", target: "b" }],
};

function loaded() {
  const store = createDocumentStore();
  const result = store.getState().load({ workflowId: "w", version: 1, document: DOC });
  expect(result.ok).toBe(true);
  return store;
}

const byId = <T extends { id: string }>(list: T[]) => new Map(list.map((x) => [x.id, x]));

describe("canvas elements", () => {
  it("draw the implicit Start and End, which cannot be moved or deleted", () => {
    const store = loaded();
    const nodes = buildNodes(canvasInputs(store.getState().content), new Map());
    expect(nodes.map((n) => n.id)).toEqual(["start", "end", "a", "b"]);
    const start = nodes[0] as FlowNode;
    expect(start.draggable).toBe(false);
    expect(start.deletable).toBe(false);
  });

  it("keep every unchanged element's object when one node moves, so only that node re-renders", () => {
    const store = loaded();
    const first = buildNodes(canvasInputs(store.getState().content), new Map());
    const untouched = buildNodes(canvasInputs(store.getState().content), byId(first));
    expect(untouched.every((n, i) => n === first[i])).toBe(true);
    const firstEdges = buildEdges(canvasInputs(store.getState().content), first, new Map(), describeEdge);
    store.getState().dispatch({ type: "move-nodes", positions: [{ id: "b", x: 320, y: 10 }] });
    const content = store.getState().content;
    const second = buildNodes(canvasInputs(content), byId(first));
    const changed = second.filter((n, i) => n !== first[i]).map((n) => n.id);
    // b moved; the implicit Start and End sit beside the drawn nodes, at their mean height, so they follow.
    expect(changed.sort()).toEqual(["b", "end", "start"]);
    const secondEdges = buildEdges(canvasInputs(content), second, byId(firstEdges), describeEdge);
    expect(secondEdges[0]).toBe(firstEdges[0]);
  });

  it("carry selection, problem counts and comparison marks into the elements", () => {
    const store = loaded();
    const content = store.getState().content;
    const extra = {
      selectedNodeIds: ["a"],
      selectedEdgeIds: ["e1"],
      problems: [
        { code: "X", message: "x", nodeId: "b" },
        { code: "Y", message: "y", nodeId: "b" },
        { code: "Z", message: "z", edgeId: "e1" },
      ],
      marks: { nodes: { a: "added" as const }, edges: { e1: "changed" as const } },
    };
    const nodes = buildNodes(canvasInputs(content, extra), new Map());
    const a = nodes.find((n) => n.id === "a") as FlowNode;
    const b = nodes.find((n) => n.id === "b") as FlowNode;
    expect(a.selected).toBe(true);
    expect(a.data.mark).toBe("added");
    expect(b.type === "workflow" && b.data.problems).toBe(2);
    const [edge] = buildEdges(canvasInputs(content, extra), nodes, new Map(), describeEdge) as [FlowEdge];
    expect(edge.selected).toBe(true);
    expect(edge.className).toContain("superstep-edge-problem");
    expect(edge.className).toContain("superstep-edge-changed");
    expect(edge.sourceHandle).toBe("out");
  });

  it("make everything fixed on a read-only preview", () => {
    const store = loaded();
    const nodes = buildNodes(canvasInputs(store.getState().content, { readOnly: true }), new Map());
    expect(nodes.every((n) => n.draggable === false && n.deletable === false)).toBe(true);
  });
});

describe("canvas elements of a large workflow", () => {
  it("give new objects only to a pasted node's elements, and undoing the paste restores the very document", () => {
    const store = createDocumentStore();
    const big = chainOfNodes(500, "n");
    expect(store.getState().load({ workflowId: "w", version: 1, document: { name: "Big", ...big } }).ok).toBe(true);
    const before = store.getState().content;
    const nodes0 = buildNodes(canvasInputs(before), new Map());
    const edges0 = buildEdges(canvasInputs(before), nodes0, new Map(), describeEdge);

    const clip = chainOfNodes(100, "p");
    const pasted = store.getState().dispatch({ type: "paste", text: JSON.stringify({ ...clip, state: [] }) });
    expect(pasted.ok).toBe(true);
    const afterPaste = store.getState().content;
    const nodes1 = buildNodes(canvasInputs(afterPaste), byId(nodes0));
    const edges1 = buildEdges(canvasInputs(afterPaste), nodes1, byId(edges0), describeEdge);
    const old = new Set(nodes0.map((n) => n.id));
    const rebuilt = nodes1.filter((n) => old.has(n.id) && n !== byId(nodes0).get(n.id)).map((n) => n.id);
    // Only the implicit Start and End, which sit beside the drawn nodes, follow the new ones.
    expect(rebuilt.sort()).toEqual(["end", "start"]);
    expect(nodes1.length - nodes0.length).toBe(100);
    expect(edges1.filter((e) => e !== byId(edges0).get(e.id))).toHaveLength(99);

    expect(store.getState().undo()).toBe(true);
    // The history gives back the object it kept: nothing is rebuilt or copied.
    expect(store.getState().content).toBe(before);
    const nodes2 = buildNodes(canvasInputs(store.getState().content), byId(nodes1));
    const edges2 = buildEdges(canvasInputs(store.getState().content), nodes2, byId(edges1), describeEdge);
    expect(nodes2.map((n) => n.id)).toEqual(nodes0.map((n) => n.id));
    expect(
      nodes2
        .filter((n) => n !== byId(nodes1).get(n.id))
        .map((n) => n.id)
        .sort(),
    ).toEqual(["end", "start"]);
    expect(edges2.every((e, i) => e === edges1[i])).toBe(true);
  });
});
