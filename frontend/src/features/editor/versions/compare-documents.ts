// What changed between two versions of a workflow: nodes and edges added, removed or changed (the
// marks the canvas colours), which settings of each changed node differ, state field and workflow
// changes, and one document holding both versions' elements so removed ones can be shown too.
// Pure: no store, no React. A node that only moved is listed as moved, not as changed.
import type { WorkflowDocument, WorkflowEdge, WorkflowNode } from "../document";
import type { CompareMark } from "../layout/editor-ui-store";

export type ChangeKind = "added" | "removed" | "changed";

export interface SettingChange {
  /** Dotted path inside the node (`label`, `type`, `rules.0.label`). */
  path: string;
  kind: ChangeKind;
}

export interface NodeChange {
  id: string;
  type: string;
  label?: string;
  mark: CompareMark;
  /** For a changed node: the settings that differ. */
  settings: SettingChange[];
}

export interface EdgeChange {
  id: string;
  source: string;
  target: string;
  label?: string;
  mark: CompareMark;
}

export interface StateFieldChange {
  name: string;
  mark: CompareMark;
  /** For a changed field: type, reducer, default, description. */
  keys: string[];
}

export interface DocumentComparison {
  marks: { nodes: Record<string, CompareMark>; edges: Record<string, CompareMark> };
  nodes: NodeChange[];
  edges: EdgeChange[];
  state: StateFieldChange[];
  /** Ids of nodes whose only change is their position on the canvas. */
  moved: string[];
  /** `name` and/or `description`, when they differ. */
  workflow: ("name" | "description")[];
  /** The newer document plus the older one's removed nodes and edges (for one canvas). */
  union: WorkflowDocument;
}

/** At most this many setting paths are listed per node (the JSON diff has the rest). */
export const SETTING_CHANGES_MAX = 50;
const DEPTH_MAX = 8;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Equal as JSON values (key order does not matter). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && sameJson(a[k], b[k]));
  }
  return false;
}

/** The paths where two JSON values differ, deepest first-found; objects and lists are walked. */
export function settingChanges(
  a: unknown,
  b: unknown,
  prefix = "",
  depth = 0,
  out: SettingChange[] = [],
): SettingChange[] {
  if (out.length >= SETTING_CHANGES_MAX || sameJson(a, b)) return out;
  const at = (key: string | number) => (prefix === "" ? String(key) : `${prefix}.${key}`);
  const walk = depth < DEPTH_MAX;
  if (walk && isObject(a) && isObject(b)) {
    const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !(k in a))];
    for (const key of keys) {
      if (out.length >= SETTING_CHANGES_MAX) break;
      if (!(key in b)) out.push({ path: at(key), kind: "removed" });
      else if (!(key in a)) out.push({ path: at(key), kind: "added" });
      else settingChanges(a[key], b[key], at(key), depth + 1, out);
    }
    return out;
  }
  if (walk && Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length) && out.length < SETTING_CHANGES_MAX; i++) {
      if (i >= b.length) out.push({ path: at(i), kind: "removed" });
      else if (i >= a.length) out.push({ path: at(i), kind: "added" });
      else settingChanges(a[i], b[i], at(i), depth + 1, out);
    }
    return out;
  }
  out.push({ path: prefix === "" ? "/" : prefix, kind: "changed" });
  return out;
}

function labelOf(node: WorkflowNode): string | undefined {
  const label = node.data.label;
  return typeof label === "string" && label !== "" ? label : undefined;
}

function nodeEntry(node: WorkflowNode, mark: CompareMark, settings: SettingChange[] = []): NodeChange {
  const label = labelOf(node);
  return { id: node.id, type: node.type, ...(label !== undefined ? { label } : {}), mark, settings };
}

function edgeEntry(edge: WorkflowEdge, mark: CompareMark): EdgeChange {
  return {
    id: edge.id,
    source: edge.source,
    target: edge.target,
    ...(edge.label !== undefined ? { label: edge.label } : {}),
    mark,
  };
}

/** Compares an older document `a` with a newer one `b`. */
export function compareDocuments(a: WorkflowDocument, b: WorkflowDocument): DocumentComparison {
  const marks: DocumentComparison["marks"] = { nodes: {}, edges: {} };
  const nodes: NodeChange[] = [];
  const moved: string[] = [];
  const oldNodes = new Map(a.nodes.map((n) => [n.id, n]));
  const newNodes = new Map(b.nodes.map((n) => [n.id, n]));
  for (const node of b.nodes) {
    const before = oldNodes.get(node.id);
    if (!before) {
      marks.nodes[node.id] = "added";
      nodes.push(nodeEntry(node, "added"));
      continue;
    }
    const settings = [
      ...(before.type !== node.type ? [{ path: "type", kind: "changed" as const }] : []),
      ...settingChanges(before.data, node.data),
    ];
    if (settings.length > 0) {
      marks.nodes[node.id] = "changed";
      nodes.push(nodeEntry(node, "changed", settings));
    } else if (!sameJson(before.position, node.position)) moved.push(node.id);
  }
  const removedNodes = a.nodes.filter((n) => !newNodes.has(n.id));
  for (const node of removedNodes) {
    marks.nodes[node.id] = "removed";
    nodes.push(nodeEntry(node, "removed"));
  }

  const edges: EdgeChange[] = [];
  const oldEdges = new Map(a.edges.map((e) => [e.id, e]));
  const newEdges = new Set(b.edges.map((e) => e.id));
  for (const edge of b.edges) {
    const before = oldEdges.get(edge.id);
    const mark = !before ? "added" : sameJson(before, edge) ? null : "changed";
    if (mark) {
      marks.edges[edge.id] = mark;
      edges.push(edgeEntry(edge, mark));
    }
  }
  const removedEdges = a.edges.filter((e) => !newEdges.has(e.id));
  for (const edge of removedEdges) {
    marks.edges[edge.id] = "removed";
    edges.push(edgeEntry(edge, "removed"));
  }

  const state: StateFieldChange[] = [];
  const oldFields = new Map(a.state.map((f) => [f.name, f]));
  const newFields = new Set(b.state.map((f) => f.name));
  for (const field of b.state) {
    const before = oldFields.get(field.name);
    if (!before) state.push({ name: field.name, mark: "added", keys: [] });
    else if (!sameJson(before, field)) {
      const keys = settingChanges(before, field)
        .map((c) => c.path.split(".")[0] as string)
        .filter((key, i, all) => all.indexOf(key) === i);
      state.push({ name: field.name, mark: "changed", keys });
    }
  }
  for (const field of a.state)
    if (!newFields.has(field.name)) state.push({ name: field.name, mark: "removed", keys: [] });

  const workflow: DocumentComparison["workflow"] = [];
  if (a.name !== b.name) workflow.push("name");
  if ((a.description ?? "") !== (b.description ?? "")) workflow.push("description");

  const union: WorkflowDocument = { ...b, nodes: [...b.nodes, ...removedNodes], edges: [...b.edges, ...removedEdges] };
  return { marks, nodes, edges, state, moved, workflow, union };
}
