// What changed between two documents, element by element: nodes and edges by id, state fields by
// name, and the workflow's own name and description. microdiff does the deep comparison; this
// module only groups its paths by the element they start at.
import diff from "microdiff";
import type { WorkflowDocument } from "@/lib/api";

export interface ElementChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

export interface ChangeSummary {
  nodes: ElementChanges;
  edges: ElementChanges;
  state: ElementChanges;
  /** Top-level fields of the workflow that changed: `name`, `description`. */
  workflow: ("name" | "description")[];
}

/** A list of elements as a record by key, the shape microdiff compares element by element. */
export function byKey<T>(items: readonly T[], key: (item: T) => string): Record<string, T> {
  const record: Record<string, T> = {};
  for (const item of items) record[key(item)] = item;
  return record;
}

export const nodeKey = (node: { id: string }) => node.id;
export const edgeKey = (edge: { id: string }) => edge.id;
export const fieldKey = (field: { name: string }) => field.name;

function elementChanges<T>(before: readonly T[], after: readonly T[], key: (item: T) => string): ElementChanges {
  const changes: ElementChanges = { added: [], removed: [], changed: [] };
  const seen = new Set<string>();
  for (const change of diff(byKey(before, key), byKey(after, key))) {
    const id = String(change.path[0]);
    if (change.path.length === 1 && change.type === "CREATE") changes.added.push(id);
    else if (change.path.length === 1 && change.type === "REMOVE") changes.removed.push(id);
    else if (!seen.has(id)) {
      seen.add(id);
      changes.changed.push(id);
    }
  }
  return changes;
}

/** Whether two JSON values are deeply equal, whatever the order of object keys. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  return diff(a as Record<string, unknown>, b as Record<string, unknown>).length === 0;
}

export function summarizeChanges(before: WorkflowDocument, after: WorkflowDocument): ChangeSummary {
  const workflow: ChangeSummary["workflow"] = [];
  if (before.name !== after.name) workflow.push("name");
  if ((before.description ?? null) !== (after.description ?? null)) workflow.push("description");
  return {
    nodes: elementChanges(before.nodes, after.nodes, nodeKey),
    edges: elementChanges(before.edges, after.edges, edgeKey),
    state: elementChanges(before.state, after.state, fieldKey),
    workflow,
  };
}

export function changeCount(summary: ChangeSummary): number {
  const count = (c: ElementChanges) => c.added.length + c.removed.length + c.changed.length;
  return count(summary.nodes) + count(summary.edges) + count(summary.state) + summary.workflow.length;
}
