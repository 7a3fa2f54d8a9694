// The canvas's React Flow elements, derived from the document while the canvas renders (not in an
// effect after it) and handed to React Flow as arrays that stay the same object when none of their
// elements changed. Each new array React Flow receives is one update of its store, and each update
// runs the selectors of every node wrapper, handle, edge and minimap node on the canvas (thousands
// on a large workflow): an edit that changes only nodes must not also hand it "new" edges, and a
// document change must not wait for an effect, render twice and paint a frame in between.
//
// Nodes that leave the canvas are dropped at once: React Flow's node wrappers no longer throw for
// a node that is gone (vite-plugins/react-flow-removed-nodes.ts). See
// docs/decisions/0014-editor-undo-and-layout-speed.md.
import { applyNodeChanges, type NodeChange } from "@xyflow/react";
import { useCallback, useState } from "react";
import type { WorkflowEdge } from "../document";
import type { CompareMark } from "../layout/editor-ui-store";
import { buildEdges, buildNodes, type CanvasInputs, type FlowEdge, type FlowNode } from "./canvas-elements";

export type DescribeEdge = (edge: WorkflowEdge, problems: number, mark: CompareMark | undefined) => string;

export interface CanvasElements {
  nodes: FlowNode[];
  edges: FlowEdge[];
}

interface Derived extends CanvasElements {
  /** What they were derived from: a change of either derives them again. */
  inputs: CanvasInputs;
  describe: DescribeEdge;
}

const sameList = <T>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * The elements for `inputs`, keeping every unchanged element's object from `previous`, and the
 * previous arrays themselves when nothing in them changed.
 */
export function deriveElements(previous: CanvasElements, inputs: CanvasInputs, describe: DescribeEdge): CanvasElements {
  const built = buildNodes(inputs, new Map(previous.nodes.map((n) => [n.id, n])));
  const nodes = sameList(built, previous.nodes) ? previous.nodes : built;
  const builtEdges = buildEdges(inputs, nodes, new Map(previous.edges.map((e) => [e.id, e])), describe);
  const edges = sameList(builtEdges, previous.edges) ? previous.edges : builtEdges;
  return { nodes, edges };
}

const NO_ELEMENTS: CanvasElements = { nodes: [], edges: [] };

/**
 * The canvas's elements for `inputs` (an object that changes when, and only when, one of its
 * parts does), and a setter for React Flow's own changes to the nodes (measured sizes, positions
 * while dragging).
 */
export function useCanvasElements(
  inputs: CanvasInputs,
  describe: DescribeEdge,
): [CanvasElements, (update: (nodes: FlowNode[]) => FlowNode[]) => void] {
  const [derived, setDerived] = useState<Derived>(() => ({
    inputs,
    describe,
    ...deriveElements(NO_ELEMENTS, inputs, describe),
  }));
  if (derived.inputs !== inputs || derived.describe !== describe) {
    // Derived while rendering: React renders the canvas again at once, before its children, and
    // the new elements reach React Flow in the same commit as the change that made them. An
    // updater, so that a size React Flow measured in the meantime is kept.
    setDerived((d) =>
      d.inputs === inputs && d.describe === describe ? d : { inputs, describe, ...deriveElements(d, inputs, describe) },
    );
  }
  const updateNodes = useCallback(
    (update: (nodes: FlowNode[]) => FlowNode[]) => setDerived((d) => ({ ...d, nodes: update(d.nodes) })),
    [],
  );
  return [derived, updateNodes];
}

/** React Flow's changes to the nodes it measured or moves, applied to the canvas's elements. */
export const applyLocalChanges = (changes: NodeChange<FlowNode>[]) => (nodes: FlowNode[]) =>
  applyNodeChanges(changes, nodes);
