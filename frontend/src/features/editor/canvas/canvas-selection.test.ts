import { describe, expect, it } from "vitest";
import { createDocumentStore, type EditorContent } from "../document";
import {
  buildEdges,
  buildNodes,
  type CanvasInputs,
  type FlowEdge,
  type FlowNode,
  sameElements,
  withSelection,
} from "./canvas-elements";

// What React Flow receives when the selection changes: each new nodes or edges array is one update
// of its store, which runs the selectors of every mounted node, handle and edge.
function bigDocument(count: number) {
  return {
    name: "Big",
    nodes: Array.from({ length: count }, (_, i) => ({
      id: `n${i}`,
      type: "code",
      position: { x: (i % 100) * 260, y: Math.floor(i / 100) * 160 },
      data: { label: `Step ${i}` },
    })),
    edges: Array.from({ length: count - 1 }, (_, i) => ({ id: `e${i}`, source: `n${i}`, target: `n${i + 1}` })),
  };
}

function inputs(content: EditorContent, selectedNodeIds: string[]): CanvasInputs {
  return {
    document: content.document,
    notes: content.notes,
    selectedNodeIds,
    selectedEdgeIds: [],
    problems: [],
    marks: { nodes: {}, edges: {} },
    readOnly: false,
  };
}

const byId = <T extends { id: string }>(list: T[]) => new Map(list.map((x) => [x.id, x]));
const describeEdge = () => "edge";

/** The canvas's derivation (workflow-canvas.tsx): the previous arrays kept when nothing in them changed. */
function derive(content: EditorContent, selected: string[], previous: { nodes: FlowNode[]; edges: FlowEdge[] }) {
  const nodes = sameElements(previous.nodes, buildNodes(inputs(content, selected), byId(previous.nodes)));
  const edges = sameElements(
    previous.edges,
    buildEdges(inputs(content, selected), nodes, byId(previous.edges), describeEdge),
  );
  return { nodes, edges };
}

describe("a node selection on the canvas", () => {
  it("hands React Flow a new nodes array with new objects for the two nodes whose selection changed, and no new edges", () => {
    const store = createDocumentStore();
    expect(store.getState().load({ workflowId: "w", version: 1, document: bigDocument(500) }).ok).toBe(true);
    const content = store.getState().content;
    const none = derive(content, [], { nodes: [], edges: [] });
    expect(none.nodes).toHaveLength(502);
    expect(none.edges.length).toBeGreaterThan(0);

    const first = derive(content, ["n7"], none);
    expect(first.edges).toBe(none.edges);
    expect(first.nodes).not.toBe(none.nodes);
    expect(first.nodes.filter((n, i) => n !== none.nodes[i]).map((n) => n.id)).toEqual(["n7"]);

    const second = derive(content, ["n8"], first);
    expect(second.edges).toBe(none.edges);
    expect(second.nodes.filter((n, i) => n !== first.nodes[i]).map((n) => n.id)).toEqual(["n7", "n8"]);
    expect(second.nodes.find((n) => n.id === "n8")?.selected).toBe(true);
    expect(second.nodes.find((n) => n.id === "n7")?.selected).toBe(false);
  });

  it("is drawn by the click's own update: the derivation after it keeps that array (one React Flow update)", () => {
    const store = createDocumentStore();
    expect(store.getState().load({ workflowId: "w", version: 1, document: bigDocument(500) }).ok).toBe(true);
    const content = store.getState().content;
    const shown = derive(content, ["n7"], derive(content, [], { nodes: [], edges: [] }));
    // React Flow reports a click on n8 as two changes; the canvas applies them to its nodes at once.
    const clicked = withSelection(shown.nodes, [
      { id: "n7", selected: false },
      { id: "n8", selected: true },
    ]);
    expect(clicked.filter((n, i) => n !== shown.nodes[i]).map((n) => n.id)).toEqual(["n7", "n8"]);
    // The selection reaches the editor's store; the canvas derives its elements again and finds them drawn.
    const derived = derive(content, ["n8"], { nodes: clicked, edges: shown.edges });
    expect(derived.nodes).toBe(clicked);
    expect(derived.edges).toBe(shown.edges);
    // A change that changes nothing keeps the array.
    expect(withSelection(clicked, [{ id: "n8", selected: true }])).toBe(clicked);
  });

  it("keeps both arrays when nothing changed (a render for another reason is no React Flow update)", () => {
    const store = createDocumentStore();
    expect(store.getState().load({ workflowId: "w", version: 1, document: bigDocument(50) }).ok).toBe(true);
    const content = store.getState().content;
    const shown = derive(content, ["n3"], derive(content, [], { nodes: [], edges: [] }));
    const again = derive(content, ["n3"], shown);
    expect(again.nodes).toBe(shown.nodes);
    expect(again.edges).toBe(shown.edges);
  });
});

describe("sameElements", () => {
  it("keeps the previous array only when every element is the very same object, in the same order", () => {
    const a = { id: "a" };
    const b = { id: "b" };
    const previous = [a, b];
    expect(sameElements(previous, [a, b])).toBe(previous);
    const swapped = [b, a];
    expect(sameElements(previous, swapped)).toBe(swapped);
    const copy = [a, { id: "b" }];
    expect(sameElements(previous, copy)).toBe(copy);
    const shorter = [a];
    expect(sameElements(previous, shorter)).toBe(shorter);
  });
});
