// Which part of the graph an automatic layout moves, and where the result is put. Kept apart from
// auto-layout.ts so that dagre stays out of the editor's first chunk (it loads on the first layout).
import type { LayoutInput, LayoutPosition } from "./auto-layout";

export interface LayoutNode {
  id: string;
  width: number;
  height: number;
  position: { x: number; y: number };
  /** Drawn but not movable (the implicit Start and End). */
  fixed?: boolean;
}

/**
 * What to lay out: with two or more movable nodes selected, only those and the edges between them
 * (placed back where the selection's top-left corner was: `anchor`); otherwise the whole graph.
 */
export function layoutScope(
  nodes: readonly LayoutNode[],
  edges: readonly { source: string; target: string }[],
  selected: ReadonlySet<string>,
): { input: LayoutInput; anchor: { x: number; y: number } | null } {
  const chosen = nodes.filter((n) => !n.fixed && selected.has(n.id));
  const scoped = chosen.length >= 2;
  const kept = scoped ? chosen : nodes;
  const ids = new Set(kept.map((n) => n.id));
  const input: LayoutInput = {
    nodes: kept.map(({ id, width, height, fixed }) => (fixed ? { id, width, height, fixed } : { id, width, height })),
    edges: edges
      .filter((e) => ids.has(e.source) && ids.has(e.target))
      .map(({ source, target }) => ({ source, target })),
  };
  if (!scoped) return { input, anchor: null };
  const anchor = {
    x: Math.min(...chosen.map((n) => n.position.x)),
    y: Math.min(...chosen.map((n) => n.position.y)),
  };
  return { input, anchor };
}

/** Moves laid-out positions so that their top-left corner is `anchor` (unchanged without one). */
export function placeAt(positions: LayoutPosition[], anchor: { x: number; y: number } | null): LayoutPosition[] {
  if (!anchor || positions.length === 0) return positions;
  const dx = anchor.x - Math.min(...positions.map((p) => p.x));
  const dy = anchor.y - Math.min(...positions.map((p) => p.y));
  return positions.map((p) => ({ id: p.id, x: p.x + dx, y: p.y + dy }));
}
