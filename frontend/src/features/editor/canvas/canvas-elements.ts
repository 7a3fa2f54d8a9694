// The document as React Flow nodes and edges. Built on every document change, but every element
// whose inputs did not change keeps its previous object, so React Flow re-renders only what moved
// or changed (immer keeps untouched document nodes identical).
import type { Edge, Node } from "@xyflow/react";
import type { CanvasNote, NodeType, WorkflowDocument, WorkflowEdge, WorkflowNode } from "../document";
import type { CompareMark, ShownProblem } from "../layout/editor-ui-store";
import { edgeSourceHandle, edgesBySource, type HandleSpec, sourceHandles } from "./canvas-graph";

export interface WorkflowNodeData extends Record<string, unknown> {
  /** The node as drawn: its position may be older than the element's (moving does not redraw it). */
  node: WorkflowNode;
  handles: HandleSpec[];
  problems: number;
  mark: CompareMark | undefined;
  /** The Start or End the graph adds when the document has none (not stored, cannot move). */
  implicit: boolean;
  readOnly: boolean;
}
export interface NoteNodeData extends Record<string, unknown> {
  note: CanvasNote;
  readOnly: boolean;
  mark: undefined;
}
export type WorkflowFlowNode = Node<WorkflowNodeData, "workflow">;
export type NoteFlowNode = Node<NoteNodeData, "note">;
export type FlowNode = WorkflowFlowNode | NoteFlowNode;
export interface WorkflowEdgeData extends Record<string, unknown> {
  edge: WorkflowEdge;
  problems: number;
  mark: CompareMark | undefined;
}
export type FlowEdge = Edge<WorkflowEdgeData>;

export interface CanvasInputs {
  document: WorkflowDocument;
  notes: readonly CanvasNote[];
  selectedNodeIds: readonly string[];
  selectedEdgeIds: readonly string[];
  problems: readonly ShownProblem[];
  marks: { nodes: Readonly<Record<string, CompareMark>>; edges: Readonly<Record<string, CompareMark>> };
  readOnly: boolean;
}

const sameHandles = (a: readonly HandleSpec[], b: readonly HandleSpec[]) =>
  a.length === b.length && a.every((h, i) => h.id === b[i]?.id && h.stale === b[i]?.stale);

function problemCounts(problems: readonly ShownProblem[]) {
  const nodes = new Map<string, number>();
  const edges = new Map<string, number>();
  for (const p of problems) {
    if (p.edgeId) edges.set(p.edgeId, (edges.get(p.edgeId) ?? 0) + 1);
    else if (p.nodeId) nodes.set(p.nodeId, (nodes.get(p.nodeId) ?? 0) + 1);
  }
  return { nodes, edges };
}

/** Where the implicit Start and End sit: left and right of the drawn nodes. */
function implicitPosition(document: WorkflowDocument, which: "start" | "end") {
  if (document.nodes.length === 0) return which === "start" ? { x: 0, y: 0 } : { x: 400, y: 0 };
  let minX = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let sumY = 0;
  for (const n of document.nodes) {
    minX = Math.min(minX, n.position.x);
    maxX = Math.max(maxX, n.position.x);
    sumY += n.position.y;
  }
  const y = Math.round(sumY / document.nodes.length);
  return which === "start" ? { x: minX - 280, y } : { x: maxX + 280, y };
}

export function buildNodes(inputs: CanvasInputs, previous: ReadonlyMap<string, FlowNode>): FlowNode[] {
  const { document, readOnly } = inputs;
  const selected = new Set(inputs.selectedNodeIds);
  const counts = problemCounts(inputs.problems).nodes;
  const outgoing = edgesBySource(document.edges);
  const result: FlowNode[] = [];
  const hasType = (type: NodeType) => document.nodes.some((n) => n.type === type || n.id === type);
  const implicit: WorkflowNode[] = [];
  if (!hasType("start"))
    implicit.push({ id: "start", type: "start", position: implicitPosition(document, "start"), data: {} });
  if (!hasType("end")) implicit.push({ id: "end", type: "end", position: implicitPosition(document, "end"), data: {} });
  const push = (node: WorkflowNode, isImplicit: boolean) => {
    const handles = sourceHandles(node, outgoing.get(node.id) ?? []);
    const problems = counts.get(node.id) ?? 0;
    const mark = inputs.marks.nodes[node.id];
    const isSelected = selected.has(node.id);
    const prev = previous.get(node.id);
    const before = prev?.type === "workflow" ? prev : undefined;
    // What a node draws does not include where it is: a node that only moved (a drag's end, an
    // automatic layout) keeps its data object, so React Flow moves it without redrawing it.
    const drawnAlike =
      before !== undefined &&
      before.data.node.type === node.type &&
      // The implicit Start and End are made anew each time, with no settings.
      (before.data.node.data === node.data || (isImplicit && before.data.implicit)) &&
      before.data.implicit === isImplicit &&
      before.data.problems === problems &&
      before.data.mark === mark &&
      before.data.readOnly === readOnly &&
      sameHandles(before.data.handles, handles);
    if (
      before &&
      drawnAlike &&
      before.selected === isSelected &&
      before.position.x === node.position.x &&
      before.position.y === node.position.y
    ) {
      result.push(before);
      return;
    }
    // A node whose handles stay the same keeps its measured size (no re-measuring, no flicker).
    const measured = prev?.type === "workflow" && sameHandles(prev.data.handles, handles) ? prev.measured : undefined;
    result.push({
      ...(measured ? { measured } : {}),
      id: node.id,
      type: "workflow",
      position: node.position,
      selected: isSelected,
      draggable: !readOnly && !isImplicit,
      deletable: !readOnly && !isImplicit,
      connectable: !readOnly,
      ariaLabel: undefined,
      data: before && drawnAlike ? before.data : { node, handles, problems, mark, implicit: isImplicit, readOnly },
    });
  };
  for (const node of implicit) push(node, true);
  for (const node of document.nodes) push(node, false);
  for (const note of inputs.notes) {
    const prev = previous.get(note.id);
    const isSelected = selected.has(note.id);
    if (
      prev?.type === "note" &&
      prev.data.note === note &&
      prev.selected === isSelected &&
      prev.data.readOnly === readOnly
    ) {
      result.push(prev);
      continue;
    }
    result.push({
      ...(prev?.type === "note" && prev.measured && !note.size ? { measured: prev.measured } : {}),
      id: note.id,
      type: "note",
      position: note.position,
      selected: isSelected,
      draggable: !readOnly,
      deletable: !readOnly,
      connectable: false,
      zIndex: -1,
      ...(note.size ? { width: note.size.width, height: note.size.height } : {}),
      data: { note, readOnly, mark: undefined },
    });
  }
  return result;
}

export function buildEdges(
  inputs: CanvasInputs,
  nodes: readonly FlowNode[],
  previous: ReadonlyMap<string, FlowEdge>,
  describe: (edge: WorkflowEdge, problems: number, mark: CompareMark | undefined) => string,
): FlowEdge[] {
  const handlesOf = new Map<string, HandleSpec[]>();
  for (const n of nodes) if (n.type === "workflow") handlesOf.set(n.id, n.data.handles);
  const selected = new Set(inputs.selectedEdgeIds);
  const counts = problemCounts(inputs.problems).edges;
  return inputs.document.edges.map((edge) => {
    const sourceHandle = edgeSourceHandle(edge, handlesOf.get(edge.source) ?? []);
    const problems = counts.get(edge.id) ?? 0;
    const mark = inputs.marks.edges[edge.id];
    const isSelected = selected.has(edge.id);
    const prev = previous.get(edge.id);
    if (
      prev?.data?.edge === edge &&
      prev.sourceHandle === sourceHandle &&
      prev.selected === isSelected &&
      prev.data.problems === problems &&
      prev.data.mark === mark &&
      prev.deletable === !inputs.readOnly
    )
      return prev;
    const classes = ["superstep-edge"];
    // An imported graph's conditional edge: its routing function picks it at run time.
    if (edge.conditional === true) classes.push("superstep-edge-conditional");
    if (problems > 0) classes.push("superstep-edge-problem");
    if (mark) classes.push(`superstep-edge-${mark}`);
    return {
      id: edge.id,
      source: edge.source,
      target: edge.target,
      sourceHandle,
      targetHandle: "in",
      selected: isSelected,
      deletable: !inputs.readOnly,
      className: classes.join(" "),
      ...(edge.label !== undefined ? { label: edge.label } : {}),
      ariaLabel: describe(edge, problems, mark),
      data: { edge, problems, mark },
    };
  });
}
