// Pure graph helpers the canvas, the command palette and the outline share: which handles a node
// offers, which handle an edge leaves from, and what lies upstream or downstream of a selection.
import { outputHandles, type WorkflowEdge, type WorkflowNode } from "../document";

/** One outgoing handle: `out` for an unlabelled output, `label:<label>` for a labelled one. */
export interface HandleSpec {
  id: string;
  label?: string;
  /** A label an edge still carries but the node no longer declares (shown, so the edge stays visible). */
  stale?: boolean;
}

export const PLAIN_HANDLE = "out";
export const labelHandleId = (label: string) => `label:${label}`;

/** The label a handle id stands for (undefined for the plain handle). */
export function handleLabel(handleId: string | null | undefined): string | undefined {
  return handleId?.startsWith("label:") ? handleId.slice("label:".length) : undefined;
}

/**
 * The outgoing handles of a node: the labels its settings declare (Condition, Decision, For each),
 * one plain handle for ordinary nodes, none for End. Labels its edges use that the settings no
 * longer declare, and unlabelled edges of a labelled node, keep a handle too.
 */
export function sourceHandles(
  node: Pick<WorkflowNode, "id" | "type" | "data">,
  outgoing: readonly WorkflowEdge[],
): HandleSpec[] {
  const spec = outputHandles(node, outgoing);
  if (spec.rule === "none") return [];
  if (spec.rule === "single") return [{ id: PLAIN_HANDLE }];
  const handles: HandleSpec[] = spec.labels.map((label) => ({ id: labelHandleId(label), label }));
  const known = new Set(spec.labels);
  let plain = spec.labels.length === 0;
  for (const edge of outgoing) {
    if (edge.label === undefined) plain = true;
    else if (!known.has(edge.label)) {
      known.add(edge.label);
      handles.push({ id: labelHandleId(edge.label), label: edge.label, stale: true });
    }
  }
  if (plain) handles.push({ id: PLAIN_HANDLE });
  return handles;
}

/** The handle an edge leaves from, among its source's handles. */
export function edgeSourceHandle(edge: WorkflowEdge, handles: readonly HandleSpec[]): string {
  if (edge.label !== undefined && handles.some((h) => h.label === edge.label)) return labelHandleId(edge.label);
  return handles.some((h) => h.id === PLAIN_HANDLE) || handles.length === 0
    ? PLAIN_HANDLE
    : (handles[0] as HandleSpec).id;
}

/** Outgoing edges per source id, in document order. */
export function edgesBySource(edges: readonly WorkflowEdge[]): Map<string, WorkflowEdge[]> {
  const map = new Map<string, WorkflowEdge[]>();
  for (const edge of edges) {
    const list = map.get(edge.source);
    if (list) list.push(edge);
    else map.set(edge.source, [edge]);
  }
  return map;
}

/** Every node reachable from the given ones against (upstream) or along (downstream) the edges, the given ones included. */
export function reachable(
  edges: readonly WorkflowEdge[],
  from: Iterable<string>,
  direction: "upstream" | "downstream",
): Set<string> {
  const next = new Map<string, string[]>();
  for (const edge of edges) {
    const [a, b] = direction === "downstream" ? [edge.source, edge.target] : [edge.target, edge.source];
    const list = next.get(a);
    if (list) list.push(b);
    else next.set(a, [b]);
  }
  const seen = new Set(from);
  const stack = [...seen];
  while (stack.length > 0) {
    const id = stack.pop() as string;
    for (const other of next.get(id) ?? [])
      if (!seen.has(other)) {
        seen.add(other);
        stack.push(other);
      }
  }
  return seen;
}
