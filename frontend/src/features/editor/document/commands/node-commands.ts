// Adding, removing, moving and configuring nodes.
import { castDraft } from "immer";
import { DOCUMENT_LIMITS, factsOf, nestingDepth } from "../backend-shared.js";
import { refuse } from "../document-errors.js";
import type { NodeType, PositionUpdate, WorkflowNode } from "../document-types.js";
import { isElementId, nodeIdAllocator } from "../element-ids.js";
import { copyJsonValue } from "../json-values.js";
import { defaultNodeData } from "../node-defaults.js";
import { setAtPath } from "../setting-paths.js";
import type { CommandHandler } from "./command-types.js";

export const LABEL_MAX = 100;

export function checkPosition(position: unknown): { x: number; y: number } {
  const p = position as { x?: unknown; y?: unknown } | null;
  if (!p || typeof p.x !== "number" || typeof p.y !== "number" || !Number.isFinite(p.x) || !Number.isFinite(p.y))
    refuse("EDITOR_POSITION_INVALID");
  return { x: p.x, y: p.y };
}

export function nodeOf(nodes: readonly WorkflowNode[], id: string): WorkflowNode {
  const node = nodes.find((n) => n.id === id);
  if (!node) refuse("EDITOR_NODE_NOT_FOUND", { id });
  return node;
}

export const addNode: CommandHandler<"add-node"> = (draft, { node }) => {
  if (!factsOf(node.type)) refuse("EDITOR_NODE_TYPE_UNKNOWN", { type: String(node.type).slice(0, 100) });
  const type = node.type as NodeType;
  if (draft.document.nodes.length >= DOCUMENT_LIMITS.nodes)
    refuse("EDITOR_TOO_MANY_NODES", { max: DOCUMENT_LIMITS.nodes });
  const ids = nodeIdAllocator(draft);
  let id: string;
  if (node.id !== undefined) {
    if (!isElementId(node.id) || (node.id === "start" && type !== "start") || (node.id === "end" && type !== "end"))
      refuse("EDITOR_ID_INVALID", { id: String(node.id).slice(0, 100) });
    if (ids.has(node.id)) refuse("EDITOR_ID_TAKEN", { id: node.id });
    id = node.id;
  } else id = ids.next(type, type === "start" || type === "end");
  const data = copyJsonValue(node.data ?? defaultNodeData(type));
  if (data === null || typeof data !== "object" || Array.isArray(data)) refuse("EDITOR_VALUE_NOT_JSON");
  draft.document.nodes.push(
    castDraft({ id, type, position: checkPosition(node.position), data: data as Record<string, unknown> }),
  );
  return { labelKey: "editor.history.addNode", params: { type }, created: [id] };
};

export const removeElements: CommandHandler<"remove"> = (draft, command) => {
  const nodeIds = new Set(command.nodeIds ?? []);
  const edgeIds = new Set(command.edgeIds ?? []);
  const noteIds = new Set(command.noteIds ?? []);
  const { document } = draft;
  for (const id of nodeIds) nodeOf(document.nodes, id);
  for (const id of edgeIds) if (!document.edges.some((e) => e.id === id)) refuse("EDITOR_EDGE_NOT_FOUND", { id });
  for (const id of noteIds) if (!draft.notes.some((n) => n.id === id)) refuse("EDITOR_NOTE_NOT_FOUND", { id });
  if (nodeIds.size + edgeIds.size + noteIds.size === 0) refuse("EDITOR_NOTHING_SELECTED");
  const edgesBefore = document.edges.length;
  if (nodeIds.size > 0) document.nodes = document.nodes.filter((n) => !nodeIds.has(n.id));
  document.edges = document.edges.filter((e) => !edgeIds.has(e.id) && !nodeIds.has(e.source) && !nodeIds.has(e.target));
  if (noteIds.size > 0) draft.notes = draft.notes.filter((n) => !noteIds.has(n.id));
  return {
    labelKey: command.cut ? "editor.history.cut" : "editor.history.remove",
    params: {
      count: nodeIds.size + (edgesBefore - document.edges.length) + noteIds.size,
      nodes: nodeIds.size,
      edges: edgesBefore - document.edges.length,
      notes: noteIds.size,
    },
  };
};

/** Moves nodes and notes; shared by move-nodes and apply-layout. */
function movePositions(draft: Parameters<CommandHandler<"move-nodes">>[0], positions: PositionUpdate[]): number {
  const nodes = new Map(draft.document.nodes.map((n) => [n.id, n]));
  const notes = new Map(draft.notes.map((n) => [n.id, n]));
  for (const update of positions) {
    const position = checkPosition(update);
    const target = nodes.get(update.id) ?? notes.get(update.id);
    if (!target) refuse("EDITOR_NODE_NOT_FOUND", { id: String(update.id) });
    // Untouched when unchanged, so a layout that keeps a node in place changes nothing there.
    if (target.position.x !== position.x || target.position.y !== position.y) target.position = position;
  }
  return positions.length;
}

export const moveNodes: CommandHandler<"move-nodes"> = (draft, command) => {
  const count = movePositions(draft, command.positions);
  return {
    labelKey: "editor.history.moveNodes",
    params: { count },
    ...(command.group !== undefined ? { group: `move:${command.group}` } : {}),
  };
};

export const applyLayout: CommandHandler<"apply-layout"> = (draft, command) => {
  const count = movePositions(draft, command.positions);
  return { labelKey: "editor.history.applyLayout", params: { count } };
};

export const updateNodeData: CommandHandler<"update-node-data"> = (draft, { nodeId, path, value }) => {
  const node = nodeOf(draft.document.nodes, nodeId);
  if (!Array.isArray(path)) refuse("EDITOR_SETTING_PATH_INVALID", { path: String(path) });
  const limit = DOCUMENT_LIMITS.dataDepth - path.length;
  if (path.length === 0) {
    const data = copyJsonValue(value, limit);
    if (data === null || typeof data !== "object" || Array.isArray(data)) refuse("EDITOR_VALUE_NOT_JSON");
    node.data = castDraft(data as Record<string, unknown>);
  } else {
    if (limit < 0) refuse("EDITOR_DATA_TOO_DEEP", { max: DOCUMENT_LIMITS.dataDepth });
    setAtPath(node.data, path, value === undefined ? undefined : copyJsonValue(value, limit));
    // Creating the objects on the way can deepen the data past what the backend accepts.
    if (nestingDepth(node.data) > DOCUMENT_LIMITS.dataDepth)
      refuse("EDITOR_DATA_TOO_DEEP", { max: DOCUMENT_LIMITS.dataDepth });
  }
  const setting = path.map(String).join(".");
  return {
    labelKey: "editor.history.updateNodeData",
    params: { node: nodeLabel(node), setting },
    group: `data:${nodeId}:${JSON.stringify(path)}`,
  };
};

export const renameNode: CommandHandler<"rename-node"> = (draft, { nodeId, label }) => {
  const node = nodeOf(draft.document.nodes, nodeId);
  if (typeof label !== "string" || label.trim().length > LABEL_MAX) refuse("EDITOR_LABEL_INVALID", { max: LABEL_MAX });
  if (label.trim() === "") delete node.data.label;
  else node.data.label = label;
  return { labelKey: "editor.history.renameNode", params: { node: node.id }, group: `label:${nodeId}` };
};

function nodeLabel(node: { id: string; data: Record<string, unknown> }): string {
  return typeof node.data.label === "string" && node.data.label.trim() !== "" ? node.data.label : node.id;
}
