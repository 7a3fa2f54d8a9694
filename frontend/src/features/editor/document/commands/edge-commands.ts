// Connecting and disconnecting nodes. Graph rules (a For each needs `item` and `done`, a Join two
// inputs, …) are the validator's; here only what can never be right is refused.
import { castDraft, type Draft } from "immer";
import { DOCUMENT_LIMITS } from "../backend-shared.js";
import { refuse } from "../document-errors.js";
import type { EditorContent, WorkflowDocument } from "../document-types.js";
import { edgeIdAllocator, isElementId } from "../element-ids.js";
import type { CommandHandler } from "./command-types.js";
import { LABEL_MAX } from "./node-commands.js";

/**
 * The node an edge may name: an explicit node, or the implicit `start` / `end` when the document
 * has no Start / End node (as the backend's graph model reads it).
 */
export function endpointType(document: WorkflowDocument, id: string): string | undefined {
  const node = document.nodes.find((n) => n.id === id);
  if (node) return node.type;
  if (id === "start" && !document.nodes.some((n) => n.type === "start")) return "start";
  if (id === "end" && !document.nodes.some((n) => n.type === "end")) return "end";
  return undefined;
}

function checkLabel(label: unknown): string | undefined {
  if (label === undefined || label === null || label === "") return undefined;
  if (typeof label !== "string" || label.length > LABEL_MAX) refuse("EDITOR_LABEL_INVALID", { max: LABEL_MAX });
  return label;
}

export const connect: CommandHandler<"connect"> = (draft, command) => {
  const { document } = draft;
  const sourceType = endpointType(document as WorkflowDocument, command.source);
  const targetType = endpointType(document as WorkflowDocument, command.target);
  if (!sourceType) refuse("EDITOR_NODE_NOT_FOUND", { id: String(command.source) });
  if (!targetType) refuse("EDITOR_NODE_NOT_FOUND", { id: String(command.target) });
  if (targetType === "start") refuse("EDITOR_EDGE_INTO_START");
  if (sourceType === "end") refuse("EDITOR_EDGE_OUT_OF_END");
  const label = checkLabel(command.label);
  if (document.edges.some((e) => e.source === command.source && e.target === command.target && e.label === label))
    refuse("EDITOR_EDGE_EXISTS");
  if (document.edges.length >= DOCUMENT_LIMITS.edges) refuse("EDITOR_TOO_MANY_EDGES", { max: DOCUMENT_LIMITS.edges });
  const ids = edgeIdAllocator(draft as EditorContent);
  let id: string;
  if (command.id !== undefined) {
    if (!isElementId(command.id)) refuse("EDITOR_ID_INVALID", { id: String(command.id).slice(0, 100) });
    if (ids.has(command.id)) refuse("EDITOR_ID_TAKEN", { id: command.id });
    id = command.id;
  } else id = ids.next("edge");
  document.edges.push(
    castDraft({ id, source: command.source, target: command.target, ...(label !== undefined ? { label } : {}) }),
  );
  return {
    labelKey: "editor.history.connect",
    params: { source: command.source, target: command.target, label: label ?? "" },
    created: [id],
  };
};

function edgeOf(draft: Draft<EditorContent>, id: string) {
  const edge = draft.document.edges.find((e) => e.id === id);
  if (!edge) refuse("EDITOR_EDGE_NOT_FOUND", { id: String(id) });
  return edge;
}

export const disconnect: CommandHandler<"disconnect"> = (draft, { edgeIds }) => {
  const ids = new Set(edgeIds);
  if (ids.size === 0) refuse("EDITOR_NOTHING_SELECTED");
  for (const id of ids) edgeOf(draft, id);
  draft.document.edges = draft.document.edges.filter((e) => !ids.has(e.id));
  return { labelKey: "editor.history.disconnect", params: { count: ids.size } };
};

export const setEdgeLabel: CommandHandler<"set-edge-label"> = (draft, { edgeId, label }) => {
  const edge = edgeOf(draft, edgeId);
  const next = checkLabel(label);
  if (
    next !== edge.label &&
    draft.document.edges.some(
      (e) => e !== edge && e.source === edge.source && e.target === edge.target && e.label === next,
    )
  )
    refuse("EDITOR_EDGE_EXISTS");
  if (next === undefined) delete edge.label;
  else edge.label = next;
  return { labelKey: "editor.history.setEdgeLabel", params: { label: next ?? "" } };
};
