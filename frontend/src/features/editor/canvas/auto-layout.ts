// Automatic layout with dagre: a layered drawing left to right, nodes of one rank stacked. Pure,
// so it runs in the layout worker and in tests alike. Ranks come from dagre's "tight-tree" ranker:
// its default (network simplex) took about three quarters of a 500-node layout for ranks that are
// rarely different on workflow graphs (see docs/decisions/0012-editor-canvas-speed.md). On large
// graphs the order of the nodes within a rank is dagre's first one (a depth-first walk from the
// first ranks), without its crossing-reduction sweeps: they took over half of a 500-node layout
// and removed few or no crossings on workflow graphs (docs/decisions/0014-editor-undo-and-layout-speed.md).
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

/** Graphs with more nodes than this are ordered without dagre's crossing-reduction sweeps. */
export const SWEEP_MAX_NODES = 150;

type DagreGraph = InstanceType<typeof dagre.graphlib.Graph>;

/**
 * Dagre's first order of the nodes of each rank (its `initOrder`): a depth-first walk from the
 * nodes of the lowest ranks along outgoing edges, each node placed after those already in its
 * rank. Given to dagre as its `customOrder`, which also spares the layer graphs its sweeps need.
 */
export function depthFirstOrder(graph: DagreGraph): void {
  const label = (v: string) => graph.node(v) as { rank: number; order?: number };
  const layers: string[][] = [];
  const seen = new Set<string>();
  const pending: string[] = [];
  const starts = graph.nodes().filter((v) => graph.children(v).length === 0);
  starts.sort((a, b) => label(a).rank - label(b).rank);
  for (const start of starts) {
    // An explicit stack (successors pushed in reverse) visits in the same order as recursion would.
    pending.push(start);
    while (pending.length > 0) {
      const v = pending.pop() as string;
      if (seen.has(v)) continue;
      seen.add(v);
      const rank = label(v).rank;
      const layer = layers[rank] ?? [];
      layers[rank] = layer;
      layer.push(v);
      const next = graph.successors(v) ?? [];
      for (let i = next.length - 1; i >= 0; i--) if (!seen.has(next[i] as string)) pending.push(next[i] as string);
    }
  }
  for (const layer of layers) {
    if (!layer) continue;
    layer.forEach((v, order) => {
      label(v).order = order;
    });
  }
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
  dagre.layout(graph, input.nodes.length > SWEEP_MAX_NODES ? { customOrder: depthFirstOrder } : undefined);
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
