import { describe, expect, it } from "vitest";
import { computeLayout } from "./auto-layout";
import { type LayoutNode, layoutScope, placeAt } from "./layout-scope";

const size = { width: 208, height: 56 };
const node = (id: string, x: number, y: number, fixed = false): LayoutNode => ({
  id,
  ...size,
  position: { x, y },
  ...(fixed ? { fixed } : {}),
});
const nodes = [
  node("start", -300, 0, true),
  node("a", 0, 0),
  node("b", 500, 300),
  node("c", 900, 900),
  node("d", 50, 50),
];
const edges = [
  { source: "start", target: "a" },
  { source: "a", target: "b" },
  { source: "b", target: "c" },
  { source: "a", target: "d" },
];

describe("the part of the graph a layout moves", () => {
  it("lays out the whole graph when fewer than two movable nodes are selected", () => {
    for (const selected of [new Set<string>(), new Set(["b"]), new Set(["start", "b"])]) {
      const { input, anchor } = layoutScope(nodes, edges, selected);
      expect(anchor).toBeNull();
      expect(input.nodes.map((n) => n.id)).toEqual(["start", "a", "b", "c", "d"]);
      expect(input.nodes[0]).toEqual({ id: "start", ...size, fixed: true });
      expect(input.edges).toEqual(edges);
    }
  });

  it("lays out only the selection, with the edges between selected nodes, and keeps its top-left corner", () => {
    const { input, anchor } = layoutScope(nodes, edges, new Set(["b", "c", "d"]));
    expect(input.nodes.map((n) => n.id)).toEqual(["b", "c", "d"]);
    expect(input.edges).toEqual([{ source: "b", target: "c" }]);
    expect(anchor).toEqual({ x: 50, y: 50 });
    const placed = placeAt(computeLayout(input), anchor);
    expect(placed.map((p) => p.id).sort()).toEqual(["b", "c", "d"]);
    expect(Math.min(...placed.map((p) => p.x))).toBe(50);
    expect(Math.min(...placed.map((p) => p.y))).toBe(50);
    const at = new Map(placed.map((p) => [p.id, p]));
    expect(at.get("c")!.x).toBeGreaterThan(at.get("b")!.x + size.width);
  });

  it("leaves positions alone without an anchor", () => {
    const positions = [{ id: "a", x: 3, y: 4 }];
    expect(placeAt(positions, null)).toBe(positions);
  });
});
