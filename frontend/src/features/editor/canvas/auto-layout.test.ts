import { describe, expect, it } from "vitest";
import { computeLayout } from "./auto-layout";

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
});
