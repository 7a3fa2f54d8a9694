// Copy, paste and duplicate as JSON, across workflows and browser tabs. The clipboard holds the
// copied nodes, the edges between them, notes, and the state fields they use, so a paste into
// another workflow keeps its references working. A paste gets new ids, keeps only the edges
// between pasted nodes and adds the state fields the target does not declare yet.
import { castDraft, type Draft } from "immer";
import { z } from "zod";
import { DOCUMENT_LIMITS, stateField, workflowEdge, workflowNode } from "../backend-shared.js";
import { refuse } from "../document-errors.js";
import type { CanvasNote, EditorContent, Position, StateField, WorkflowEdge, WorkflowNode } from "../document-types.js";
import { edgeIdAllocator, nodeIdAllocator } from "../element-ids.js";
import { fieldsUsedBy } from "../references.js";
import type { CommandHandler } from "./command-types.js";
import { canvasNote, NOTE_LIMITS } from "./note-commands.js";

/** Marks our clipboard JSON; other JSON with a `nodes` list (a whole workflow file) is read too. */
export const CLIPBOARD_FORMAT = "superstep/nodes";
export const CLIPBOARD_VERSION = 1;
/** Where a paste without a place lands, relative to the copied position. */
export const PASTE_OFFSET = { x: 40, y: 40 } as const;
/** Longer clipboard text is refused before it is parsed. */
export const MAX_CLIPBOARD_CHARS = 20 * 1024 * 1024;

export interface ClipboardContent {
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  notes: CanvasNote[];
  state: StateField[];
}

/** The selected nodes and notes, the edges between the nodes and the state fields they name. */
export function selectionContent(
  content: EditorContent,
  nodeIds: Iterable<string>,
  noteIds: Iterable<string> = [],
): ClipboardContent {
  const nodeSet = new Set(nodeIds);
  const noteSet = new Set(noteIds);
  const nodes = content.document.nodes.filter((n) => nodeSet.has(n.id));
  const edges = content.document.edges.filter((e) => nodeSet.has(e.source) && nodeSet.has(e.target));
  const notes = content.notes.filter((n) => noteSet.has(n.id));
  const used = new Set<string>();
  for (const node of nodes) for (const name of fieldsUsedBy(node)) used.add(name);
  const state = content.document.state.filter((field) => used.has(field.name));
  return { nodes, edges, notes, state };
}

/** Clipboard text for the selection. */
export function copySelection(
  content: EditorContent,
  nodeIds: Iterable<string>,
  noteIds: Iterable<string> = [],
): string {
  const selected = selectionContent(content, nodeIds, noteIds);
  return JSON.stringify({ format: CLIPBOARD_FORMAT, version: CLIPBOARD_VERSION, ...selected });
}

const clipboardShape = z.object({
  nodes: z.array(z.unknown()).max(DOCUMENT_LIMITS.nodes),
  edges: z.array(z.unknown()).max(DOCUMENT_LIMITS.edges).optional(),
  notes: z.array(z.unknown()).max(NOTE_LIMITS.notes).optional(),
  state: z.array(z.unknown()).max(DOCUMENT_LIMITS.stateFields).optional(),
});

function issueText(error: z.ZodError): { path: string; detail: string } {
  const issue = error.issues[0];
  return { path: issue?.path.join(".") ?? "", detail: issue?.message ?? "" };
}

/** Clipboard text read as nodes, edges, notes and fields; refused with a code when it is not. */
export function readClipboard(text: unknown): ClipboardContent {
  if (typeof text !== "string" || text.trim() === "") refuse("EDITOR_CLIPBOARD_EMPTY");
  if (text.length > MAX_CLIPBOARD_CHARS) refuse("EDITOR_DOCUMENT_TOO_LARGE", { max: MAX_CLIPBOARD_CHARS });
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    refuse("EDITOR_CLIPBOARD_NOT_JSON");
  }
  const shape = clipboardShape.safeParse(raw);
  if (!shape.success) {
    const tooMany = shape.error.issues.some((i) => i.code === "too_big");
    if (tooMany) refuse("EDITOR_TOO_MANY_NODES", { max: DOCUMENT_LIMITS.nodes });
    refuse("EDITOR_CLIPBOARD_NOT_WORKFLOW");
  }
  const nodes = shape.data.nodes.map((node, i) => {
    const parsed = workflowNode.safeParse(node);
    if (parsed.success) return parsed.data;
    const type = (node as { type?: unknown } | null)?.type;
    if (parsed.error.issues.some((issue) => issue.path[0] === "type"))
      refuse("EDITOR_NODE_TYPE_UNKNOWN", { type: String(type).slice(0, 100) });
    const { path, detail } = issueText(parsed.error);
    return refuse("EDITOR_CLIPBOARD_INVALID", { path: `nodes.${i}.${path}`, detail });
  });
  const parseAll = <T>(items: unknown[] | undefined, schema: z.ZodType<T>, name: string): T[] =>
    (items ?? []).map((item, i) => {
      const parsed = schema.safeParse(item);
      if (parsed.success) return parsed.data;
      const { path, detail } = issueText(parsed.error);
      return refuse("EDITOR_CLIPBOARD_INVALID", { path: `${name}.${i}.${path}`, detail });
    });
  return {
    nodes,
    edges: parseAll(shape.data.edges, workflowEdge, "edges"),
    notes: parseAll(shape.data.notes, canvasNote, "notes"),
    state: parseAll(shape.data.state, stateField, "state"),
  };
}

/** Adds clipboard content to the draft with new ids; returns the new node and note ids. */
export function pasteContent(draft: Draft<EditorContent>, clip: ClipboardContent, at: Position | undefined): string[] {
  if (clip.nodes.length === 0 && clip.notes.length === 0) refuse("EDITOR_NOTHING_SELECTED");
  const { document } = draft;
  if (document.nodes.length + clip.nodes.length > DOCUMENT_LIMITS.nodes)
    refuse("EDITOR_TOO_MANY_NODES", { max: DOCUMENT_LIMITS.nodes });
  if (draft.notes.length + clip.notes.length > NOTE_LIMITS.notes)
    refuse("EDITOR_TOO_MANY_NOTES", { max: NOTE_LIMITS.notes });
  // State fields first: new node ids must not take a field's name.
  const declared = new Set(document.state.map((f) => f.name));
  const nodeIdsNow = new Set(document.nodes.map((n) => n.id));
  for (const field of clip.state) {
    if (declared.has(field.name) || nodeIdsNow.has(field.name)) continue;
    if (document.state.length >= DOCUMENT_LIMITS.stateFields)
      refuse("EDITOR_TOO_MANY_STATE_FIELDS", { max: DOCUMENT_LIMITS.stateFields });
    document.state.push(castDraft(structuredClone(field)));
    declared.add(field.name);
  }
  const placed = [...clip.nodes.map((n) => n.position), ...clip.notes.map((n) => n.position)];
  const minX = Math.min(...placed.map((p) => p.x));
  const minY = Math.min(...placed.map((p) => p.y));
  const shift = at ? { x: at.x - minX, y: at.y - minY } : PASTE_OFFSET;
  const move = (p: Position) => ({ x: p.x + shift.x, y: p.y + shift.y });
  const ids = nodeIdAllocator(draft as EditorContent);
  const renamed = new Map<string, string>();
  const created: string[] = [];
  for (const node of clip.nodes) {
    if (renamed.has(node.id)) continue; // a clipboard with a repeated id: the first one wins
    const id = ids.next(node.type, node.type === "start" || node.type === "end");
    renamed.set(node.id, id);
    created.push(id);
    document.nodes.push(castDraft({ ...structuredClone(node), id, position: move(node.position) }));
  }
  const edgeIds = edgeIdAllocator(draft as EditorContent);
  const seen = new Set<string>();
  for (const edge of clip.edges) {
    const source = renamed.get(edge.source);
    const target = renamed.get(edge.target);
    const key = JSON.stringify([source, target, edge.label]);
    if (!source || !target || seen.has(key)) continue;
    if (document.edges.length >= DOCUMENT_LIMITS.edges) refuse("EDITOR_TOO_MANY_EDGES", { max: DOCUMENT_LIMITS.edges });
    seen.add(key);
    const id = edgeIds.next("edge");
    document.edges.push(castDraft({ id, source, target, ...(edge.label !== undefined ? { label: edge.label } : {}) }));
  }
  for (const note of clip.notes) {
    const id = ids.next("note");
    created.push(id);
    draft.notes.push(castDraft({ ...structuredClone(note), id, position: move(note.position) }));
  }
  return created;
}

export const paste: CommandHandler<"paste"> = (draft, { text, at }) => {
  const clip = readClipboard(text);
  const stateBefore = draft.document.state.length;
  const created = pasteContent(draft, clip, at);
  return {
    labelKey: "editor.history.paste",
    params: {
      count: created.length,
      nodes: clip.nodes.length,
      notes: clip.notes.length,
      fields: draft.document.state.length - stateBefore,
    },
    created,
  };
};

export const duplicate: CommandHandler<"duplicate"> = (draft, { nodeIds, noteIds = [] }) => {
  for (const id of nodeIds) if (!draft.document.nodes.some((n) => n.id === id)) refuse("EDITOR_NODE_NOT_FOUND", { id });
  for (const id of noteIds) if (!draft.notes.some((n) => n.id === id)) refuse("EDITOR_NOTE_NOT_FOUND", { id });
  // Plain copies: the draft's proxies are not cloneable.
  const clip = JSON.parse(
    JSON.stringify(selectionContent(draft as EditorContent, nodeIds, noteIds)),
  ) as ClipboardContent;
  const created = pasteContent(draft, clip, undefined);
  return {
    labelKey: "editor.history.duplicate",
    params: { count: created.length, nodes: clip.nodes.length, notes: clip.notes.length },
    created,
  };
};
