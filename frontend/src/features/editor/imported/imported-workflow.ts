// A workflow made from an imported repository's graph (decision 0028): how the editor recognises
// it (read-only everywhere), and what it shows of its nodes and edges (the graph's own node id,
// the source location, the subgraph a node belongs to, conditional edges). Pure functions.
import type { WorkflowDocument, WorkflowEdge, WorkflowNode } from "../document";

export type ImportedGraphInfo = NonNullable<WorkflowDocument["imported"]>;

/** The part of a document (the editor's, or the API's workflow) that says where it came from. */
type Sourced = Pick<WorkflowDocument, "name"> & { imported?: ImportedGraphInfo | undefined };

/** The import a document came from, or null for a workflow built in the editor. */
export function importedOf(document: Sourced): ImportedGraphInfo | null {
  return document.imported ?? null;
}

/**
 * Whether the editor opens the document read-only: an imported workflow's code lives in its
 * repository, and the server refuses to save changed nodes or edges (WORKFLOW_READ_ONLY).
 */
export function isReadOnlyDocument(document: Sourced): boolean {
  return importedOf(document) !== null;
}

/** What an imported node keeps of the graph (`data.imported`). */
export interface ImportedNodeInfo {
  /** The graph's own node id ("parent:child" inside a subgraph). */
  node: string;
  /** file:line of the node's function, or null (library code, unknown). */
  location: string | null;
  /** The parent node id of the subgraph it belongs to, or null. */
  subgraph: string | null;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The imported part of a node's data, or null for a node that has none (or a malformed one). */
export function importedNodeInfo(node: Pick<WorkflowNode, "data">): ImportedNodeInfo | null {
  const imported = node.data.imported;
  if (!isRecord(imported) || typeof imported.node !== "string") return null;
  const source = imported.source;
  const location =
    isRecord(source) && typeof source.file === "string"
      ? typeof source.line === "number"
        ? `${source.file}:${source.line}`
        : source.file
      : null;
  const subgraph = typeof imported.subgraph === "string" && imported.subgraph !== "" ? imported.subgraph : null;
  return { node: imported.node, location, subgraph };
}

/** A node's source text as stored (the node function's source, or a comment for library code). */
export function importedNodeCode(node: Pick<WorkflowNode, "data">): string {
  return typeof node.data.code === "string" ? node.data.code : "";
}

/** The subgraphs of a document, each with its nodes' ids, in the order the nodes come. */
export function subgraphGroups(nodes: readonly Pick<WorkflowNode, "id" | "data">[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const node of nodes) {
    const subgraph = importedNodeInfo(node)?.subgraph;
    if (!subgraph) continue;
    const members = groups.get(subgraph);
    if (members) members.push(node.id);
    else groups.set(subgraph, [node.id]);
  }
  return groups;
}

/** Whether an edge is one the graph's routing function chooses (drawn dashed). */
export function isConditionalEdge(edge: Pick<WorkflowEdge, "conditional">): boolean {
  return edge.conditional === true;
}

/**
 * The JSON schema of the graph's runtime context as text for the run input's hint, or null when
 * the graph has none (no context, or it was not described).
 */
export function contextSchemaText(imported: ImportedGraphInfo | null): string | null {
  if (!imported || imported.context_schema === null || imported.context_schema === undefined) return null;
  return JSON.stringify(imported.context_schema, null, 2);
}
