// The workflow as a graph: explicit nodes plus the implicit `start` and `end`, with adjacency.
import type { WorkflowDocument } from "../../schemas/workflow.schema.js";

export const IMPLICIT_START = "start";
export const IMPLICIT_END = "end";

export type DocNode = WorkflowDocument["nodes"][number];
export type DocEdge = WorkflowDocument["edges"][number];

export interface GraphModel {
  startId: string;
  endId: string;
  /** Node id → node; includes synthetic start/end entries when they are implicit. */
  nodes: Map<string, DocNode>;
  outgoing: Map<string, DocEdge[]>;
  incoming: Map<string, DocEdge[]>;
}

export function buildGraphModel(document: WorkflowDocument): GraphModel {
  const nodes = new Map<string, DocNode>();
  for (const node of document.nodes) if (!nodes.has(node.id)) nodes.set(node.id, node);
  const explicitStart = document.nodes.find((n) => n.type === "start");
  const explicitEnd = document.nodes.find((n) => n.type === "end");
  const startId = explicitStart?.id ?? IMPLICIT_START;
  const endId = explicitEnd?.id ?? IMPLICIT_END;
  if (!explicitStart) nodes.set(startId, { id: startId, type: "start", position: { x: 0, y: 0 }, data: {} });
  if (!explicitEnd) nodes.set(endId, { id: endId, type: "end", position: { x: 0, y: 0 }, data: {} });
  const outgoing = new Map<string, DocEdge[]>();
  const incoming = new Map<string, DocEdge[]>();
  for (const id of nodes.keys()) {
    outgoing.set(id, []);
    incoming.set(id, []);
  }
  for (const edge of document.edges) {
    if (!nodes.has(edge.source) || !nodes.has(edge.target)) continue;
    outgoing.get(edge.source)?.push(edge);
    incoming.get(edge.target)?.push(edge);
  }
  return { startId, endId, nodes, outgoing, incoming };
}

/** Ids reachable from `from` along edges, `from` included. Breadth first, linear in nodes + edges. */
export function reachableFrom(
  model: GraphModel,
  from: string,
  skip: (id: string) => boolean = () => false,
): Set<string> {
  const seen = new Set<string>([from]);
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    const id = queue[head] as string;
    if (id !== from && skip(id)) continue;
    for (const edge of model.outgoing.get(id) ?? []) {
      if (!seen.has(edge.target)) {
        seen.add(edge.target);
        queue.push(edge.target);
      }
    }
  }
  return seen;
}

/**
 * Strongly connected components (Tarjan, iterative) of the subgraph of `include` nodes. Each frame
 * keeps its position in the node's own edge list, so every edge is looked at once: linear.
 */
export function stronglyConnected(model: GraphModel, include: (id: string) => boolean): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  const open = (id: string) => {
    index.set(id, counter);
    low.set(id, counter++);
    stack.push(id);
    onStack.add(id);
    return { id, edges: model.outgoing.get(id) ?? [], edge: 0 };
  };
  for (const root of model.nodes.keys()) {
    if (!include(root) || index.has(root)) continue;
    const work = [open(root)];
    while (work.length > 0) {
      const frame = work[work.length - 1] as { id: string; edges: DocEdge[]; edge: number };
      if (frame.edge < frame.edges.length) {
        const next = (frame.edges[frame.edge++] as DocEdge).target;
        if (!include(next)) continue;
        if (!index.has(next)) {
          work.push(open(next));
        } else if (onStack.has(next)) {
          low.set(frame.id, Math.min(low.get(frame.id) as number, index.get(next) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.id, Math.min(low.get(parent.id) as number, low.get(frame.id) as number));
      if (low.get(frame.id) === index.get(frame.id)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.id);
        components.push(component);
      }
    }
  }
  return components;
}
