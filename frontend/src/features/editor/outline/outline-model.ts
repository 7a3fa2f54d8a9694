// The outline's rows: every node (the implicit Start and End first when the document has none),
// each with its outgoing edges, in document order; and which rows show when some are collapsed.
import type { WorkflowDocument, WorkflowEdge, WorkflowNode } from "../document";

export interface OutlineEntry {
  node: WorkflowNode;
  implicit: boolean;
  edges: WorkflowEdge[];
}

export interface OutlineItem {
  key: string;
  kind: "node" | "edge";
  node: WorkflowNode;
  edge?: WorkflowEdge;
  implicit: boolean;
  childCount: number;
}

const implicitNode = (type: "start" | "end"): WorkflowNode => ({ id: type, type, position: { x: 0, y: 0 }, data: {} });

export function buildOutline(document: WorkflowDocument, ends: { start: boolean; end: boolean }): OutlineEntry[] {
  const out = new Map<string, WorkflowEdge[]>();
  for (const edge of document.edges) out.set(edge.source, [...(out.get(edge.source) ?? []), edge]);
  const entries: OutlineEntry[] = [];
  if (ends.start) entries.push({ node: implicitNode("start"), implicit: true, edges: out.get("start") ?? [] });
  for (const node of document.nodes) entries.push({ node, implicit: false, edges: out.get(node.id) ?? [] });
  if (ends.end) entries.push({ node: implicitNode("end"), implicit: true, edges: [] });
  return entries;
}

/** The rows in order, leaving out the edges of collapsed nodes. */
export function visibleItems(entries: readonly OutlineEntry[], collapsed: ReadonlySet<string>): OutlineItem[] {
  const items: OutlineItem[] = [];
  for (const { node, implicit, edges } of entries) {
    items.push({ key: `n:${node.id}`, kind: "node", node, implicit, childCount: edges.length });
    if (collapsed.has(node.id)) continue;
    for (const edge of edges)
      items.push({ key: `e:${edge.id}`, kind: "edge", node, edge, implicit: false, childCount: 0 });
  }
  return items;
}
