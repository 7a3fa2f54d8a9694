// Reading the store. Selectors that build a new array or object each call must be used with
// zustand's `useShallow` (or memoised by the caller), or React re-renders without end.
import { declaredOutputLabels, factsOf, type OutputRule } from "./backend-shared.js";
import { endpointType } from "./commands/edge-commands.js";
import type { DocumentState } from "./document-store.js";
import type { WorkflowDocument, WorkflowEdge, WorkflowNode } from "./document-types.js";
import { currentEntryId } from "./history.js";

export const selectDocument = (s: DocumentState) => s.content.document;
export const selectNodes = (s: DocumentState) => s.content.document.nodes;
export const selectEdges = (s: DocumentState) => s.content.document.edges;
export const selectState = (s: DocumentState) => s.content.document.state;
export const selectNotes = (s: DocumentState) => s.content.notes;
export const selectNode = (id: string) => (s: DocumentState) => s.content.document.nodes.find((n) => n.id === id);
export const selectEdge = (id: string) => (s: DocumentState) => s.content.document.edges.find((e) => e.id === id);

/** Unsaved changes: the history is not where the last save (or the load) left it. */
export const selectIsDirty = (s: DocumentState) => currentEntryId(s.history) !== s.savedEntryId;
export const selectSavedVersion = (s: DocumentState) => s.savedVersion;
/** The newest applied history entry (null: none): what a save marks as saved when it succeeds. */
export const selectCurrentEntryId = (s: DocumentState) => currentEntryId(s.history);
export const selectCanUndo = (s: DocumentState) => !s.readOnly && s.history.past.length > 0;
export const selectCanRedo = (s: DocumentState) => !s.readOnly && s.history.future.length > 0;

/** One line of the history list: done entries first (oldest first), then the undone ones. */
export interface HistoryItem {
  id: number;
  labelKey: string;
  params: Record<string, string | number>;
  /** Whether the entry is applied (false: undone, can be redone). */
  done: boolean;
  /** The newest applied entry. */
  current: boolean;
}

export function historyItems(s: DocumentState): HistoryItem[] {
  const current = currentEntryId(s.history);
  const item = (done: boolean) => (e: DocumentState["history"]["past"][number]) => ({
    id: e.id,
    labelKey: e.labelKey,
    params: e.params,
    done,
    current: e.id === current,
  });
  return [...s.history.past.map(item(true)), ...s.history.future.map(item(false))];
}

/** The implicit Start and End the canvas draws when the document has no such node (edges may name them). */
export function implicitEnds(document: WorkflowDocument): { start: boolean; end: boolean } {
  return {
    start: !document.nodes.some((n) => n.type === "start" || n.id === "start"),
    end: !document.nodes.some((n) => n.type === "end" || n.id === "end"),
  };
}

/** The outgoing handles of a node: one unlabelled handle, none, or one per label. */
export interface OutputHandles {
  rule: OutputRule["kind"];
  /** Labels to offer: from the node's settings (Condition), fixed (For each), or suggestions and
   * labels already on its edges (Decision). Empty for `single` and `none`. */
  labels: string[];
  /** Whether a new label may be typed in (Decision). */
  freeLabels: boolean;
}

export function outputHandles(
  node: Pick<WorkflowNode, "id" | "type" | "data">,
  edges: readonly WorkflowEdge[],
): OutputHandles {
  const rule = factsOf(node.type)?.outputs ?? { kind: "single" as const };
  const labels = declaredOutputLabels(node.type, node.data);
  if (rule.kind === "free") {
    for (const edge of edges)
      if (edge.source === node.id && edge.label && !labels.includes(edge.label)) labels.push(edge.label);
  }
  return { rule: rule.kind, labels, freeLabels: rule.kind === "free" };
}

/** Whether an edge may start at this node / end at it (End has no output, Start no input). */
export function canConnect(document: WorkflowDocument, source: string, target: string): boolean {
  const from = endpointType(document, source);
  const to = endpointType(document, target);
  return from !== undefined && to !== undefined && from !== "end" && to !== "start";
}
