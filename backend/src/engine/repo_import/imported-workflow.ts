// An imported graph as a workflow document (decision 0028): `__start__`/`__end__` become Start and
// End, every other node a read-only Code node holding its function's source text and, in
// `data.imported`, the graph's own node id, where its source is and its subgraph; edges keep
// `conditional` and the runner's label. Node ids are the graph's made safe for the document.
// Positions come from dagre, a subgraph's nodes in one cluster so that they sit together.
import dagre from "@dagrejs/dagre";
import type { WorkflowDocument } from "../../schemas/workflow.schema.js";
import type { RunnerGraphLine } from "./graph-inspection.js";
import { sourceBlock } from "./node-source.js";

export interface ImportedWorkflowInput {
  line: RunnerGraphLine;
  job: { id: string; env_names: string[] };
  graph: { id: string; spec: string };
  /** The workflow's name; default: the graph's name, else its id. */
  name?: string;
  /** A repository file's text (path relative to the project root), or null when it cannot be read. */
  readSource: (file: string) => string | null;
}

const NODE_SIZE = { width: 220, height: 80 };
const ID_MAX = 64;

/** Graph node ids → document ids: letters, digits, `_` and `-`, at most 64, unique, never `start`/`end`. */
export function safeNodeIds(
  ids: readonly string[],
  reserved: readonly string[] = ["start", "end"],
): Map<string, string> {
  const taken = new Set(reserved);
  const map = new Map<string, string>();
  for (const id of ids) {
    const base = id.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, ID_MAX) || "node";
    let candidate = base;
    for (let n = 2; taken.has(candidate); n++) {
      const suffix = `_${n}`;
      candidate = `${base.slice(0, ID_MAX - suffix.length)}${suffix}`;
    }
    taken.add(candidate);
    map.set(id, candidate);
  }
  return map;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function nodeCode(name: string, source: { file: string; line: number } | null, read: (file: string) => string | null) {
  const text = source ? read(source.file) : null;
  const block = text !== null && source ? sourceBlock(text, source.line) : null;
  return block ?? `# ${name}: library code, no source in the repository`;
}

export function buildImportedWorkflow(input: ImportedWorkflowInput): WorkflowDocument {
  const { line } = input;
  const isStart = (id: string) => id === "__start__";
  const isEnd = (id: string) => id === "__end__";
  const inner = line.nodes.filter((node) => !isStart(node.id) && !isEnd(node.id));
  const ids = safeNodeIds(inner.map((node) => node.id));
  ids.set("__start__", "start");
  ids.set("__end__", "end");
  const cache = new Map<string, string | null>();
  const read = (file: string) => {
    if (!cache.has(file)) cache.set(file, input.readSource(file));
    return cache.get(file) ?? null;
  };

  const nodes: WorkflowDocument["nodes"] = [
    { id: "start", type: "start", position: { x: 0, y: 0 }, data: { label: "Start" } },
    ...inner.map((node) => {
      const name = node.name ?? node.id;
      return {
        id: ids.get(node.id) as string,
        type: "code" as const,
        position: { x: 0, y: 0 },
        data: {
          label: clip(name.trim() || node.id, 100),
          language: "python",
          code: nodeCode(name, node.source, read),
          imported: { node: node.id, source: node.source, subgraph: node.subgraph },
        },
      };
    }),
    { id: "end", type: "end", position: { x: 0, y: 0 }, data: { label: "End" } },
  ];
  const edges: WorkflowDocument["edges"] = [];
  for (const edge of line.edges) {
    const source = ids.get(edge.source);
    const target = ids.get(edge.target);
    if (!source || !target) continue;
    const label = edge.label?.trim() ? clip(edge.label.trim(), 100) : undefined;
    edges.push({
      id: `e${edges.length + 1}`,
      source,
      target,
      ...(label !== undefined ? { label } : {}),
      ...(edge.conditional ? { conditional: true } : {}),
    });
  }
  layout(nodes, edges, inner);
  return {
    name: clip(input.name ?? (line.name?.trim() || input.graph.id), 200),
    state: [],
    nodes,
    edges,
    imported: {
      job_id: input.job.id,
      graph_id: input.graph.id,
      spec: input.graph.spec,
      env_names: input.job.env_names,
      context_schema: line.context_schema ?? null,
    },
  };
}

/** Left to right; nodes of one subgraph share a dagre cluster. Positions are top-left, whole pixels. */
function layout(
  nodes: WorkflowDocument["nodes"],
  edges: WorkflowDocument["edges"],
  inner: RunnerGraphLine["nodes"],
): void {
  const graph = new dagre.graphlib.Graph({ multigraph: true, compound: true });
  graph.setGraph({ rankdir: "LR", nodesep: 40, ranksep: 90, marginx: 0, marginy: 0 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) graph.setNode(node.id, { ...NODE_SIZE });
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const clusters = new Set<string>();
  inner.forEach((node, i) => {
    if (!node.subgraph) return;
    const cluster = `cluster:${node.subgraph}`;
    if (!clusters.has(cluster)) {
      clusters.add(cluster);
      graph.setNode(cluster, {});
    }
    // inner[i] is nodes[i + 1] (Start comes first).
    graph.setParent((nodes[i + 1] as { id: string }).id, cluster);
  });
  edges.forEach((edge, i) => {
    graph.setEdge(edge.source, edge.target, {}, String(i));
  });
  dagre.layout(graph);
  for (const id of graph.nodes()) {
    const node = byId.get(id);
    if (!node) continue;
    const placed = graph.node(id) as { x: number; y: number };
    node.position = {
      x: Math.round(placed.x - NODE_SIZE.width / 2),
      y: Math.round(placed.y - NODE_SIZE.height / 2),
    };
  }
}
