// Which nodes can run in the same superstep and write the same field. A node with several plain
// outgoing edges (a fan-out) starts independent branches that advance one node per superstep;
// two nodes on different branches can run together when they can sit at the same distance from
// the fan-out. Conditions and decisions pick one edge, so they never fan out; a Join ends the
// branches it gathers, so the walk stops there. For each bodies write through their gather step.
import type { GraphModel } from "./graph-model.js";

const ROUTERS = new Set(["condition", "decision", "for_each"]);

export interface ParallelWrite {
  field: string;
  nodes: [string, string];
}

function distances(model: GraphModel, from: string, fanOut: string, limit: number): Map<string, Set<number>> {
  const found = new Map<string, Set<number>>();
  const queue: [string, number][] = [[from, 0]];
  while (queue.length > 0) {
    const [id, distance] = queue.shift() as [string, number];
    const seen = found.get(id) ?? new Set<number>();
    if (seen.has(distance)) continue;
    seen.add(distance);
    found.set(id, seen);
    const type = model.nodes.get(id)?.type;
    if (distance >= limit || type === "join" || id === fanOut) continue;
    for (const edge of model.outgoing.get(id) ?? []) queue.push([edge.target, distance + 1]);
  }
  return found;
}

export function findParallelWriters(
  model: GraphModel,
  writes: Map<string, string[]>,
  capturedWriters: Set<string>,
): ParallelWrite[] {
  const limit = Math.min(2 * model.nodes.size + 2, 400);
  const writesOf = (id: string) => (capturedWriters.has(id) ? [] : (writes.get(id) ?? []));
  const clashes = new Map<string, ParallelWrite>();
  for (const [id, node] of model.nodes) {
    if (ROUTERS.has(node.type)) continue;
    const targets = [...new Set((model.outgoing.get(id) ?? []).map((e) => e.target))];
    if (targets.length < 2) continue;
    const branches = targets.map((t) => distances(model, t, id, limit));
    for (let i = 0; i < branches.length; i++) {
      for (let j = i + 1; j < branches.length; j++) {
        for (const [x, dx] of branches[i] as Map<string, Set<number>>) {
          const wx = writesOf(x);
          if (wx.length === 0) continue;
          for (const [y, dy] of branches[j] as Map<string, Set<number>>) {
            if (x === y) continue;
            const shared = wx.filter((f) => writesOf(y).includes(f));
            if (shared.length === 0 || ![...dx].some((d) => dy.has(d))) continue;
            const pair = [x, y].sort() as [string, string];
            for (const field of shared) clashes.set(`${field}|${pair.join("|")}`, { field, nodes: pair });
          }
        }
      }
    }
  }
  return [...clashes.values()];
}
