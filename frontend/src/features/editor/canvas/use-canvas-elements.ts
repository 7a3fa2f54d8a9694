// The canvas's React Flow elements, derived from the document while the canvas renders (not in an
// effect after it) and handed to React Flow as arrays that stay the same object when none of their
// elements changed. Each new array React Flow receives is one update of its store, and each update
// runs the selectors of every node wrapper, handle, edge and minimap node on the canvas (thousands
// on a large workflow): an edit that changes only nodes must not also hand it "new" edges, and a
// document change must not wait for an effect, render twice and paint a frame in between.
//
// Nodes that leave the canvas (an undone paste, a deletion) are first handed over hidden and only
// dropped after the next paint. React Flow's node wrappers read their node in a selector that
// throws when the node is gone, and every wrapper still mounted when the node list shrinks throws
// once per store update until it unmounts: on an undo of a 100-node paste that was 200 exceptions
// (about a third of the undo). A hidden node is still there, so nothing throws while the canvas
// shows the change; zoomed in (only visible nodes rendered), its wrapper is already gone when it is
// dropped. See docs/decisions/0014-editor-undo-and-layout-speed.md.
import { applyNodeChanges, type NodeChange } from "@xyflow/react";
import { useCallback, useEffect, useState } from "react";
import type { WorkflowEdge } from "../document";
import type { CompareMark } from "../layout/editor-ui-store";
import { buildEdges, buildNodes, type CanvasInputs, type FlowEdge, type FlowNode } from "./canvas-elements";

export type DescribeEdge = (edge: WorkflowEdge, problems: number, mark: CompareMark | undefined) => string;

export interface CanvasElements {
  nodes: FlowNode[];
  edges: FlowEdge[];
  /** Whether `nodes` holds nodes that left the canvas, hidden until they are dropped. */
  leaving: boolean;
}

interface Derived extends CanvasElements {
  /** What they were derived from: a change of either derives them again. */
  inputs: CanvasInputs;
  describe: DescribeEdge;
}

const sameList = <T>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * The elements for `inputs`, keeping every unchanged element's object from `previous`, and the
 * previous arrays themselves when nothing in them changed. Nodes shown before and gone now are
 * kept, hidden and unselected (see `dropLeaving`); nodes that were already leaving are dropped.
 */
export function deriveElements(previous: CanvasElements, inputs: CanvasInputs, describe: DescribeEdge): CanvasElements {
  const built = buildNodes(inputs, new Map(previous.nodes.map((n) => [n.id, n])));
  const present = new Set(built.map((n) => n.id));
  const leaving = previous.nodes
    .filter((n) => !n.hidden && !present.has(n.id))
    .map((n) => ({ ...n, hidden: true, selected: false }));
  const listed = leaving.length > 0 ? [...built, ...leaving] : built;
  const nodes = sameList(listed, previous.nodes) ? previous.nodes : listed;
  const builtEdges = buildEdges(inputs, nodes, new Map(previous.edges.map((e) => [e.id, e])), describe);
  const edges = sameList(builtEdges, previous.edges) ? previous.edges : builtEdges;
  return { nodes, edges, leaving: leaving.length > 0 };
}

/** The elements without the nodes that were leaving. */
export function dropLeaving<T extends CanvasElements>(elements: T): T {
  return elements.leaving ? { ...elements, nodes: elements.nodes.filter((n) => !n.hidden), leaving: false } : elements;
}

const NO_ELEMENTS: CanvasElements = { nodes: [], edges: [], leaving: false };

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
  // Leaving nodes are dropped once the frame that hid them has been painted.
  useEffect(() => {
    if (!derived.leaving) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => setDerived(dropLeaving), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [derived.leaving]);
  const updateNodes = useCallback(
    (update: (nodes: FlowNode[]) => FlowNode[]) => setDerived((d) => ({ ...d, nodes: update(d.nodes) })),
    [],
  );
  return [derived, updateNodes];
}

/** React Flow's changes to the nodes it measured or moves, applied to the canvas's elements. */
export const applyLocalChanges = (changes: NodeChange<FlowNode>[]) => (nodes: FlowNode[]) =>
  applyNodeChanges(changes, nodes);
