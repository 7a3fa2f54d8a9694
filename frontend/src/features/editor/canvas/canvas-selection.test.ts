import { describe, expect, it } from "vitest";
import { createDocumentStore, type EditorContent } from "../document";
import { chainOfNodes } from "../document/document.fixtures";
import { canvasInputs, describeEdge } from "./canvas.fixtures";
import type { FlowEdge, FlowNode } from "./canvas-elements";
import { deriveElements } from "./use-canvas-elements";

// What React Flow receives when the selection changes: each new nodes or edges array is one update
// of its store, which runs the selectors of every mounted node, handle and edge.
const bigDocument = (count: number) => ({ name: "Big", ...chainOfNodes(count, "n") });

/** The canvas's derivation (use-canvas-elements.ts): the previous arrays kept when nothing in them changed. */
function derive(content: EditorContent, selected: string[], previous: { nodes: FlowNode[]; edges: FlowEdge[] }) {
  return deriveElements(previous, canvasInputs(content, { selectedNodeIds: selected }), describeEdge);
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
