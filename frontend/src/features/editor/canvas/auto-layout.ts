// Automatic layout with dagre: a layered drawing left to right, nodes of one rank stacked. Pure,
// so it runs in the layout worker and in tests alike. Ranks come from dagre's "tight-tree" ranker:
// its default (network simplex) took about three quarters of a 500-node layout for ranks that are
// rarely different on workflow graphs (see docs/decisions/0012-editor-canvas-speed.md).
import dagre from "@dagrejs/dagre";

export interface LayoutInput {
  nodes: { id: string; width: number; height: number; fixed?: boolean }[];
  edges: { source: string; target: string }[];
}
export interface LayoutPosition {
  id: string;
  x: number;
  y: number;
}

/** Top-left positions for every node that is not `fixed`, rounded to whole pixels. */
export function computeLayout(input: LayoutInput): LayoutPosition[] {
  const graph = new dagre.graphlib.Graph({ multigraph: true });
  graph.setGraph({ rankdir: "LR", nodesep: 40, ranksep: 90, marginx: 0, marginy: 0, ranker: "tight-tree" });
  graph.setDefaultEdgeLabel(() => ({}));
  const ids = new Set(input.nodes.map((n) => n.id));
  for (const node of input.nodes) graph.setNode(node.id, { width: node.width, height: node.height });
  input.edges.forEach((edge, i) => {
    if (ids.has(edge.source) && ids.has(edge.target)) graph.setEdge(edge.source, edge.target, {}, String(i));
  });
  dagre.layout(graph);
  const positions: LayoutPosition[] = [];
  for (const node of input.nodes) {
    if (node.fixed) continue;
    const placed = graph.node(node.id) as { x: number; y: number };
    positions.push({
      id: node.id,
      x: Math.round(placed.x - node.width / 2),
      y: Math.round(placed.y - node.height / 2),
    });
  }
  return positions;
}
