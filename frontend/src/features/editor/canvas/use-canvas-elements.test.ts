import { describe, expect, it } from "vitest";
import { createDocumentStore, type EditorContent } from "../document";
import type { CanvasInputs, FlowNode } from "./canvas-elements";
import { type CanvasElements, deriveElements, dropLeaving } from "./use-canvas-elements";

const describeEdge = () => "edge";
const NONE: CanvasElements = { nodes: [], edges: [], leaving: false };

function inputs(content: EditorContent, extra: Partial<CanvasInputs> = {}): CanvasInputs {
  return {
    document: content.document,
    notes: content.notes,
    selectedNodeIds: [],
    selectedEdgeIds: [],
    problems: [],
    marks: { nodes: {}, edges: {} },
    readOnly: false,
    ...extra,
  };
}

const chain = (count: number, prefix: string) => ({
  nodes: Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${i}`,
    type: "code",
    position: { x: (i % 100) * 260, y: Math.floor(i / 100) * 160 },
    data: { label: `Step ${i}` },
  })),
  edges: Array.from({ length: count - 1 }, (_, i) => ({
    id: `${prefix}e${i}`,
    source: `${prefix}${i}`,
    target: `${prefix}${i + 1}`,
  })),
});

function bigStore() {
  const store = createDocumentStore();
  expect(store.getState().load({ workflowId: "w", version: 1, document: { name: "Big", ...chain(500, "n") } }).ok).toBe(
    true,
  );
  return store;
}

/** React Flow's StoreUpdater sets its store once per array prop that is a new object. */
const storeUpdates = (before: CanvasElements, after: CanvasElements) =>
  (before.nodes !== after.nodes ? 1 : 0) + (before.edges !== after.edges ? 1 : 0);

/** As React Flow reports a node's measured size back. */
const measured = (elements: CanvasElements): CanvasElements => ({
  ...elements,
  nodes: elements.nodes.map((n) => ({ ...n, measured: { width: 208, height: 56 } })),
});

describe("canvas elements handed to React Flow", () => {
  it("stay the same arrays when nothing drawn changed, so React Flow's store is not updated", () => {
    const store = bigStore();
    const shown = deriveElements(NONE, inputs(store.getState().content), describeEdge);
    const again = deriveElements(shown, inputs(store.getState().content), describeEdge);
    expect(storeUpdates(shown, again)).toBe(0);
    // A new problem list that marks nothing, as the validator sends after each pause.
    const sameMarks = deriveElements(again, inputs(store.getState().content, { problems: [] }), describeEdge);
    expect(storeUpdates(again, sameMarks)).toBe(0);
  });

  it("hand React Flow a new node list but the same edge list when only the selection or a node's settings change", () => {
    const store = bigStore();
    const shown = deriveElements(NONE, inputs(store.getState().content), describeEdge);
    const selected = deriveElements(shown, inputs(store.getState().content, { selectedNodeIds: ["n7"] }), describeEdge);
    expect(selected.edges).toBe(shown.edges);
    expect(storeUpdates(shown, selected)).toBe(1);
    expect(selected.nodes.filter((n, i) => n !== shown.nodes[i]).map((n) => n.id)).toEqual(["n7"]);

    store.getState().dispatch({ type: "rename-node", nodeId: "n8", label: "Renamed" });
    const renamed = deriveElements(
      selected,
      inputs(store.getState().content, { selectedNodeIds: ["n7"] }),
      describeEdge,
    );
    expect(renamed.edges).toBe(selected.edges);
    expect(renamed.nodes.filter((n, i) => n !== selected.nodes[i]).map((n) => n.id)).toEqual(["n8"]);
  });

  it("undo a 100-node paste in two React Flow updates that remove nothing, then drop the hidden nodes in one", () => {
    const store = bigStore();
    const before = measured(deriveElements(NONE, inputs(store.getState().content), describeEdge));
    const clip = chain(100, "p");
    const pasted = store.getState().dispatch({ type: "paste", text: JSON.stringify({ ...clip, state: [] }) });
    expect(pasted.ok && pasted.created).toHaveLength(100);
    const created = pasted.ok ? (pasted.created ?? []) : [];
    const withPaste = measured(
      deriveElements(before, inputs(store.getState().content, { selectedNodeIds: created }), describeEdge),
    );
    expect(withPaste.nodes).toHaveLength(before.nodes.length + 100);

    store.getState().undo();
    const undone = deriveElements(
      withPaste,
      // The selection still names the pasted nodes; the canvas draws none of them selected.
      inputs(store.getState().content, { selectedNodeIds: created }),
      describeEdge,
    );
    expect(storeUpdates(withPaste, undone)).toBe(2);
    // Every node React Flow had is still there: none of its node wrappers loses its node yet.
    expect(undone.nodes.map((n) => n.id).sort()).toEqual(withPaste.nodes.map((n) => n.id).sort());
    const leaving = undone.nodes.filter((n) => n.hidden);
    expect(leaving.map((n) => n.id).sort()).toEqual([...created].sort());
    expect(leaving.every((n) => n.selected === false)).toBe(true);
    expect(undone.leaving).toBe(true);
    // The pasted nodes' edges are gone at once (an edge reads its nodes safely).
    expect(undone.edges).toHaveLength(before.edges.length);
    // Every node that stayed keeps its object from before the paste, except the implicit Start
    // and End, which sit beside the drawn nodes.
    const earlier = new Map(withPaste.nodes.map((n) => [n.id, n]));
    expect(
      undone.nodes
        .filter((n) => !n.hidden && n !== earlier.get(n.id))
        .map((n) => n.id)
        .sort(),
    ).toEqual(["end", "start"]);

    const dropped = dropLeaving(undone);
    expect(storeUpdates(undone, dropped)).toBe(1);
    expect(dropped.edges).toBe(undone.edges);
    expect(dropped.nodes.map((n) => n.id)).toEqual(before.nodes.map((n) => n.id));
    expect(dropped.leaving).toBe(false);
    expect(dropLeaving(dropped)).toBe(dropped);
  });

  it("show a node again, measured, when it comes back before its hidden copy was dropped", () => {
    const store = bigStore();
    const shown = measured(deriveElements(NONE, inputs(store.getState().content), describeEdge));
    store.getState().dispatch({ type: "remove", nodeIds: ["n3"] });
    const deleted = deriveElements(shown, inputs(store.getState().content), describeEdge);
    expect(deleted.nodes.find((n) => n.id === "n3")?.hidden).toBe(true);
    store.getState().undo();
    const back = deriveElements(deleted, inputs(store.getState().content), describeEdge);
    const n3 = back.nodes.filter((n) => n.id === "n3") as FlowNode[];
    expect(n3).toHaveLength(1);
    expect(n3[0]?.hidden).toBeUndefined();
    expect(n3[0]?.measured).toEqual({ width: 208, height: 56 });
    expect(back.leaving).toBe(false);
    expect(back.edges.filter((e) => e.source === "n3" || e.target === "n3")).toHaveLength(2);
  });

  it("drop nodes that were already leaving at the next change", () => {
    const store = bigStore();
    const shown = deriveElements(NONE, inputs(store.getState().content), describeEdge);
    store.getState().dispatch({ type: "remove", nodeIds: ["n3"] });
    const deleted = deriveElements(shown, inputs(store.getState().content), describeEdge);
    store.getState().dispatch({ type: "remove", nodeIds: ["n4"] });
    const next = deriveElements(deleted, inputs(store.getState().content), describeEdge);
    expect(next.nodes.filter((n) => n.hidden).map((n) => n.id)).toEqual(["n4"]);
    expect(next.nodes.some((n) => n.id === "n3")).toBe(false);
  });
});
