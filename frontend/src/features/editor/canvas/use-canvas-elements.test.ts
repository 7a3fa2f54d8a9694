import { describe, expect, it } from "vitest";
import { createDocumentStore } from "../document";
import { chainOfNodes } from "../document/document.fixtures";
import { canvasInputs, describeEdge } from "./canvas.fixtures";
import type { FlowNode } from "./canvas-elements";
import { sameDrawing } from "./canvas-nodes";
import { type CanvasElements, deriveElements } from "./use-canvas-elements";

const NONE: CanvasElements = { nodes: [], edges: [] };

function bigStore() {
  const store = createDocumentStore();
  expect(
    store.getState().load({ workflowId: "w", version: 1, document: { name: "Big", ...chainOfNodes(500, "n") } }).ok,
  ).toBe(true);
  return store;
}

/**
 * React Flow's StoreUpdater sets its store once when either array prop is a new object: nodes and
 * edges that change together go in one update (vite-plugins/react-flow-store-updates.ts, whose
 * test counts the updates of React Flow's real store).
 */
const storeUpdates = (before: CanvasElements, after: CanvasElements) =>
  before.nodes !== after.nodes || before.edges !== after.edges ? 1 : 0;

/** As React Flow reports a node's measured size back. */
const measured = (elements: CanvasElements): CanvasElements => ({
  ...elements,
  nodes: elements.nodes.map((n) => ({ ...n, measured: { width: 208, height: 56 } })),
});

describe("canvas elements handed to React Flow", () => {
  it("stay the same arrays when nothing drawn changed, so React Flow's store is not updated", () => {
    const store = bigStore();
    const shown = deriveElements(NONE, canvasInputs(store.getState().content), describeEdge);
    const again = deriveElements(shown, canvasInputs(store.getState().content), describeEdge);
    expect(storeUpdates(shown, again)).toBe(0);
    // A new problem list that marks nothing, as the validator sends after each pause.
    const sameMarks = deriveElements(again, canvasInputs(store.getState().content, { problems: [] }), describeEdge);
    expect(storeUpdates(again, sameMarks)).toBe(0);
  });

  it("hand React Flow a new node list but the same edge list when only the selection or a node's settings change", () => {
    const store = bigStore();
    const shown = deriveElements(NONE, canvasInputs(store.getState().content), describeEdge);
    const selected = deriveElements(
      shown,
      canvasInputs(store.getState().content, { selectedNodeIds: ["n7"] }),
      describeEdge,
    );
    expect(selected.edges).toBe(shown.edges);
    expect(storeUpdates(shown, selected)).toBe(1);
    expect(selected.nodes.filter((n, i) => n !== shown.nodes[i]).map((n) => n.id)).toEqual(["n7"]);

    store.getState().dispatch({ type: "rename-node", nodeId: "n8", label: "Renamed" });
    const renamed = deriveElements(
      selected,
      canvasInputs(store.getState().content, { selectedNodeIds: ["n7"] }),
      describeEdge,
    );
    expect(renamed.edges).toBe(selected.edges);
    expect(renamed.nodes.filter((n, i) => n !== selected.nodes[i]).map((n) => n.id)).toEqual(["n8"]);
  });

  it("undo a 100-node paste in one React Flow update, keeping every other element's object", () => {
    const store = bigStore();
    const before = measured(deriveElements(NONE, canvasInputs(store.getState().content), describeEdge));
    const clip = chainOfNodes(100, "p");
    const pasted = store.getState().dispatch({ type: "paste", text: JSON.stringify({ ...clip, state: [] }) });
    const created = pasted.ok ? (pasted.created ?? []) : [];
    expect(created).toHaveLength(100);
    const withPaste = measured(
      deriveElements(before, canvasInputs(store.getState().content, { selectedNodeIds: created }), describeEdge),
    );
    expect(withPaste.nodes).toHaveLength(before.nodes.length + 100);
    expect(withPaste.edges).toHaveLength(before.edges.length + 99);

    store.getState().undo();
    const undone = deriveElements(
      withPaste,
      // The selection still names the pasted nodes; they are simply not drawn.
      canvasInputs(store.getState().content, { selectedNodeIds: created }),
      describeEdge,
    );
    // One new node list and one new edge list, handed over together: React Flow's store is set once.
    expect(undone.nodes).not.toBe(withPaste.nodes);
    expect(undone.edges).not.toBe(withPaste.edges);
    expect(storeUpdates(withPaste, undone)).toBe(1);
    expect(undone.nodes.map((n) => n.id)).toEqual(before.nodes.map((n) => n.id));
    expect(undone.edges.map((e) => e.id)).toEqual(before.edges.map((e) => e.id));
    // Every node that stayed keeps its object (React Flow re-renders none of them), except the
    // implicit Start and End, which sit beside the drawn nodes; every edge keeps its object.
    const earlier = new Map(withPaste.nodes.map((n) => [n.id, n]));
    expect(
      undone.nodes
        .filter((n) => n !== earlier.get(n.id))
        .map((n) => n.id)
        .sort(),
    ).toEqual(["end", "start"]);
    const earlierEdges = new Map(withPaste.edges.map((e) => [e.id, e]));
    expect(undone.edges.every((e) => e === earlierEdges.get(e.id))).toBe(true);
  });

  it("drop a removed node and its edges at once, and draw them again when the removal is undone", () => {
    const store = bigStore();
    const shown = measured(deriveElements(NONE, canvasInputs(store.getState().content), describeEdge));
    store.getState().dispatch({ type: "remove", nodeIds: ["n3"] });
    const removed = deriveElements(shown, canvasInputs(store.getState().content), describeEdge);
    expect(removed.nodes.some((n) => n.id === "n3")).toBe(false);
    expect(removed.edges.filter((e) => e.source === "n3" || e.target === "n3")).toHaveLength(0);
    store.getState().undo();
    const back = deriveElements(removed, canvasInputs(store.getState().content), describeEdge);
    expect(back.nodes.map((n) => n.id)).toEqual(shown.nodes.map((n) => n.id));
    expect(back.edges.filter((e) => e.source === "n3" || e.target === "n3")).toHaveLength(2);
  });

  it("move every node of an automatic layout in one undo step and one React Flow update, redrawing none", () => {
    const store = bigStore();
    const shown = measured(deriveElements(NONE, canvasInputs(store.getState().content), describeEdge));
    const positions = store
      .getState()
      .content.document.nodes.map((n, i) => ({ id: n.id, x: (i % 7) * 300 + 11, y: Math.floor(i / 7) * 100 + 7 }));
    expect(store.getState().dispatch({ type: "apply-layout", positions }).ok).toBe(true);
    expect(store.getState().history.past).toHaveLength(1);
    const laidOut = deriveElements(shown, canvasInputs(store.getState().content), describeEdge);
    expect(storeUpdates(shown, laidOut)).toBe(1);
    const before = new Map(shown.nodes.map((n) => [n.id, n]));
    const moved = laidOut.nodes.filter((n) => n.type === "workflow" && !n.data.implicit);
    expect(moved).toHaveLength(500);
    for (const node of moved) {
      const was = before.get(node.id) as FlowNode;
      expect(node).not.toBe(was);
      const { x, y } = positions.find((p) => p.id === node.id) ?? { x: Number.NaN, y: Number.NaN };
      expect(node.position).toEqual({ x, y });
      // Same data, so the node's drawing (memoised on id, data, selection) is not redone.
      expect(node.data).toBe(was.data);
      expect(sameDrawing(node, was)).toBe(true);
      expect(node.measured).toEqual({ width: 208, height: 56 });
    }
    // A later edit of one node redraws that node only: the moved nodes' elements are kept.
    store.getState().dispatch({ type: "rename-node", nodeId: "n9", label: "After the layout" });
    const renamed = deriveElements(laidOut, canvasInputs(store.getState().content), describeEdge);
    expect(renamed.nodes.filter((n, i) => n !== laidOut.nodes[i]).map((n) => n.id)).toEqual(["n9"]);
  });
});
