// Puts your edits on top of the server's document (a three-way merge over elements): each node,
// edge and state field you added, removed or changed since your base version is applied where the
// server left that element as it was in the base. Where both sides touched the same element, the
// server's is kept and the element is listed as a conflict for you to look at. Connections whose
// ends no longer exist are dropped and listed too.
import type { WorkflowDocument } from "@/lib/api";
import { byKey, edgeKey, fieldKey, nodeKey, sameValue } from "./change-summary.js";

export type ConflictReason =
  /** Both changed it, differently. */
  | "both-changed"
  /** You changed it; the server removed it. */
  | "removed-on-server"
  /** You removed it; the server changed it. */
  | "changed-on-server"
  /** Both added an element with this id, differently. */
  | "both-added"
  /** A connection of yours leads to a node that is no longer there. */
  | "endpoint-missing";

export interface MergeConflict {
  kind: "node" | "edge" | "state" | "workflow";
  id: string;
  reason: ConflictReason;
}

export interface MergeResult {
  document: WorkflowDocument;
  conflicts: MergeConflict[];
}

/** Ends an edge may name without a node: the implicit Start and End. */
const IMPLICIT_ENDS = new Set(["start", "end"]);

function mergeElements<T>(
  kind: MergeConflict["kind"],
  key: (item: T) => string,
  base: readonly T[],
  mine: readonly T[],
  theirs: readonly T[],
  conflicts: MergeConflict[],
): T[] {
  const baseMap = byKey(base, key);
  const mineMap = byKey(mine, key);
  const theirMap = byKey(theirs, key);
  const has = (record: Record<string, T>, id: string) => Object.hasOwn(record, id);
  // The server's elements in the server's order; yours replace them in place or follow them.
  const result = new Map<string, T>(theirs.map((item) => [key(item), item]));
  for (const [id, before] of Object.entries(baseMap)) {
    const theirsNow = has(theirMap, id) ? theirMap[id] : undefined;
    if (!has(mineMap, id)) {
      if (theirsNow === undefined) continue;
      if (sameValue(before, theirsNow)) result.delete(id);
      else conflicts.push({ kind, id, reason: "changed-on-server" });
    } else if (!sameValue(before, mineMap[id])) {
      if (theirsNow === undefined) conflicts.push({ kind, id, reason: "removed-on-server" });
      else if (sameValue(before, theirsNow) || sameValue(mineMap[id], theirsNow)) result.set(id, mineMap[id] as T);
      else conflicts.push({ kind, id, reason: "both-changed" });
    }
  }
  for (const [id, added] of Object.entries(mineMap)) {
    if (has(baseMap, id)) continue;
    if (!has(theirMap, id)) result.set(id, added);
    else if (!sameValue(added, theirMap[id])) conflicts.push({ kind, id, reason: "both-added" });
  }
  return [...result.values()];
}

function mergeScalar<T>(base: T, mine: T, theirs: T, onConflict: () => void): T {
  if (mine === base || mine === theirs) return theirs;
  if (theirs === base) return mine;
  onConflict();
  return theirs;
}

export function mergeDocuments(base: WorkflowDocument, mine: WorkflowDocument, theirs: WorkflowDocument): MergeResult {
  const conflicts: MergeConflict[] = [];
  const nodes = mergeElements("node", nodeKey, base.nodes, mine.nodes, theirs.nodes, conflicts);
  const state = mergeElements("state", fieldKey, base.state, mine.state, theirs.state, conflicts);
  const merged = mergeElements("edge", edgeKey, base.edges, mine.edges, theirs.edges, conflicts);
  const nodeIds = new Set(nodes.map((node) => node.id));
  const theirEdges = byKey(theirs.edges, edgeKey);
  const edges = merged.filter((edge) => {
    const ends = [edge.source, edge.target];
    if (ends.every((end) => nodeIds.has(end) || IMPLICIT_ENDS.has(end))) return true;
    // The server's own edges are left as the server has them.
    if (sameValue(theirEdges[edge.id], edge)) return true;
    conflicts.push({ kind: "edge", id: edge.id, reason: "endpoint-missing" });
    return false;
  });
  const name = mergeScalar(base.name, mine.name, theirs.name, () =>
    conflicts.push({ kind: "workflow", id: "name", reason: "both-changed" }),
  );
  const description = mergeScalar(base.description, mine.description, theirs.description, () =>
    conflicts.push({ kind: "workflow", id: "description", reason: "both-changed" }),
  );
  const document: WorkflowDocument = { name, state, nodes, edges };
  if (description !== undefined) document.description = description;
  return { document, conflicts };
}
