import dagre from "@dagrejs/dagre";
import { describe, expect, it } from "vitest";
import { computeLayout, type LayoutInput, SWEEP_MAX_NODES } from "./auto-layout";
import { WORKER_MIN_NODES, warmUpInput } from "./run-layout";

/** A workflow-like graph: each node follows one of the few before it, plus edges that skip ahead. */
function branchingGraph(count: number, extra: number): LayoutInput {
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const nodes = Array.from({ length: count }, (_, i) => ({ id: `n${i}`, width: 208, height: 58 }));
  const edges = [];
  for (let i = 1; i < count; i++)
    edges.push({ source: `n${Math.max(0, i - 1 - Math.floor(random() * 6))}`, target: `n${i}` });
  while (edges.length < count - 1 + extra) {
    const a = Math.floor(random() * (count - 10));
    edges.push({ source: `n${a}`, target: `n${a + 1 + Math.floor(random() * 9)}` });
  }
  return { nodes, edges };
}

/** Dagre itself, with the given layout options, as computeLayout configures it otherwise. */
function dagreLayout(input: LayoutInput, options?: { disableOptimalOrderHeuristic: boolean }) {
  const graph = new dagre.graphlib.Graph({ multigraph: true });
  graph.setGraph({ rankdir: "LR", nodesep: 40, ranksep: 90, marginx: 0, marginy: 0, ranker: "tight-tree" });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const n of input.nodes) graph.setNode(n.id, { width: n.width, height: n.height });
  input.edges.forEach((e, i) => {
    graph.setEdge(e.source, e.target, {}, String(i));
  });
  dagre.layout(graph, options);
  return input.nodes.map((n) => {
    const at = graph.node(n.id) as { x: number; y: number };
    return { id: n.id, x: Math.round(at.x - n.width / 2), y: Math.round(at.y - n.height / 2) };
  });
}

describe("automatic layout", () => {
  it("places a chain left to right without overlap and leaves fixed nodes out", () => {
    const size = { width: 200, height: 60 };
    const positions = computeLayout({
      nodes: [
        { id: "start", ...size, fixed: true },
        { id: "a", ...size },
        { id: "b", ...size },
        { id: "c", ...size },
      ],
      edges: [
        { source: "start", target: "a" },
        { source: "a", target: "b" },
        { source: "a", target: "c" },
        { source: "ghost", target: "a" },
      ],
    });
    const at = new Map(positions.map((p) => [p.id, p]));
    expect([...at.keys()].sort()).toEqual(["a", "b", "c"]);
    const a = at.get("a")!;
    const b = at.get("b")!;
    const c = at.get("c")!;
    expect(b.x).toBeGreaterThan(a.x + 200);
    expect(b.x).toBe(c.x);
    expect(Math.abs(b.y - c.y)).toBeGreaterThanOrEqual(60);
    for (const p of positions) expect(Number.isInteger(p.x) && Number.isInteger(p.y)).toBe(true);
  });

  it("gives every node of a branching workflow its own place", () => {
    const nodes = Array.from({ length: 120 }, (_, i) => ({ id: `n${i}`, width: 208, height: 56 }));
    const edges = Array.from({ length: 150 }, (_, i) => {
      const source = i % 119;
      return { source: `n${source}`, target: `n${Math.min(119, source + 1 + (i >= 119 ? (i % 5) + 1 : 0))}` };
    });
    const positions = computeLayout({ nodes, edges });
    expect(positions).toHaveLength(120);
    expect(new Set(positions.map((p) => `${p.x},${p.y}`)).size).toBe(120);
  });

  it("orders a large graph's ranks as dagre does without its crossing-reduction sweeps, with no overlap", () => {
    const input = branchingGraph(400, 80);
    expect(input.nodes.length).toBeGreaterThan(SWEEP_MAX_NODES);
    const positions = computeLayout(input);
    expect(positions).toEqual(dagreLayout(input, { disableOptimalOrderHeuristic: true }));
    const overlapping = positions.flatMap((a, i) =>
      positions.slice(i + 1).filter((b) => Math.abs(a.x - b.x) < 208 && Math.abs(a.y - b.y) < 58),
    );
    expect(overlapping).toEqual([]);
  });

  it("keeps dagre's crossing-reduction sweeps on smaller graphs", () => {
    const input = branchingGraph(SWEEP_MAX_NODES, 30);
    expect(computeLayout(input)).toEqual(dagreLayout(input));
  });

  it("warms the worker up on a graph that takes the path of a large workflow's layout", () => {
    const input = warmUpInput();
    expect(input.nodes.length).toBeGreaterThan(Math.max(WORKER_MIN_NODES, SWEEP_MAX_NODES));
    expect(computeLayout(input)).toHaveLength(input.nodes.length);
  });
});
