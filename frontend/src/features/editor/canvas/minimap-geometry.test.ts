import type { InternalNode, Node } from "@xyflow/react";
import { adoptUserNodes } from "@xyflow/system";
import { describe, expect, it } from "vitest";
import { createDocumentStore } from "../document";
import { chainOfNodes } from "../document/document.fixtures";
import { canvasInputs, describeEdge } from "./canvas.fixtures";
import type { FlowNode } from "./canvas-elements";
import { miniMapNodes, miniMapNodesSelector, miniMapViewBox } from "./minimap-geometry";
import { deriveElements } from "./use-canvas-elements";

// React Flow's state as the minimap reads it: the canvas's nodes, measured, adopted into React
// Flow's node lookup by React Flow's own function (as its store does on each nodes update).
function flowState(nodes: FlowNode[], transform: [number, number, number] = [0, 0, 1]) {
  const nodeLookup = new Map<string, InternalNode>();
  adoptUserNodes(nodes as Node[], nodeLookup, new Map(), { checkEquality: true });
  return { nodes: nodes as Node[], nodeLookup, transform };
}

const measured = (nodes: FlowNode[]) =>
  nodes.map((n) => (n.measured ? n : { ...n, measured: { width: 208, height: 58 } })) as FlowNode[];

function canvasOf500(selected: string[] = [], previous = { nodes: [] as FlowNode[], edges: [] }) {
  const store = createDocumentStore();
  expect(
    store.getState().load({ workflowId: "w", version: 1, document: { name: "Big", ...chainOfNodes(500, "n") } }).ok,
  ).toBe(true);
  return deriveElements(previous, canvasInputs(store.getState().content, { selectedNodeIds: selected }), describeEdge);
}

describe("the canvas's minimap", () => {
  it("does no work on a store update that keeps React Flow's nodes (a pan or a zoom): the same drawing", () => {
    const nodes = measured(canvasOf500().nodes);
    const select = miniMapNodesSelector();
    const state = flowState(nodes);
    const first = select(state);
    expect(first.rects).toHaveLength(502);
    // A pan: a new transform, the same nodes array.
    const panned = { ...state, transform: [120, -40, 0.5] };
    const zoomed = { ...state, transform: [0, 0, 2] };
    expect(select(panned)).toBe(first);
    expect(select(zoomed)).toBe(first);
  });

  it("redraws only the rectangles of the nodes whose selection changed", () => {
    const shown = canvasOf500();
    const nodes = measured(shown.nodes);
    const select = miniMapNodesSelector();
    const before = select(flowState(nodes));
    // The same selection the canvas makes (use-canvas-elements), sizes kept.
    const selected = canvasOf500(["n7"], { nodes, edges: shown.edges as never[] }).nodes;
    const after = select(flowState(selected));
    expect(after).not.toBe(before);
    expect(after.rects.filter((r, i) => r !== before.rects[i]).map((r) => r.id)).toEqual(["n7"]);
    expect(after.rects.find((r) => r.id === "n7")?.selected).toBe(true);
    expect(after.bounds).toEqual(before.bounds);
  });

  it("draws measured, visible nodes where React Flow placed them, and bounds them", () => {
    const nodes = [
      { id: "a", type: "workflow", position: { x: 10, y: 20 }, measured: { width: 100, height: 50 }, data: {} },
      { id: "b", type: "workflow", position: { x: 300, y: -40 }, measured: { width: 100, height: 50 }, data: {} },
      {
        id: "hidden",
        type: "workflow",
        position: { x: 5000, y: 0 },
        hidden: true,
        measured: { width: 1, height: 1 },
        data: {},
      },
      { id: "unmeasured", type: "workflow", position: { x: -900, y: 0 }, data: {} },
    ] as unknown as FlowNode[];
    const { nodes: list, nodeLookup } = flowState(nodes);
    const drawn = miniMapNodes(list, nodeLookup);
    expect(drawn.rects.map((r) => [r.id, r.x, r.y, r.width, r.height])).toEqual([
      ["a", 10, 20, 100, 50],
      ["b", 300, -40, 100, 50],
    ]);
    expect(drawn.bounds).toEqual({ x: 10, y: -40, width: 390, height: 110 });
    expect(miniMapNodes([], new Map()).bounds).toBeNull();
  });

  it("fits the nodes and the viewport into the minimap with React Flow's margin", () => {
    // 400 × 300 of nodes and viewport in a 200 × 150 minimap: scale 2, margin 5 × 2 on each side.
    const box = miniMapViewBox(
      { x: 0, y: 0, width: 100, height: 100 },
      { x: 0, y: 0, width: 400, height: 300 },
      200,
      150,
    );
    expect(box).toEqual({ x: -10, y: -10, width: 420, height: 320, offset: 10, viewScale: 2 });
    // No nodes: the viewport alone.
    expect(miniMapViewBox(null, { x: 50, y: 0, width: 200, height: 100 }, 200, 150).viewScale).toBe(1);
  });
});
