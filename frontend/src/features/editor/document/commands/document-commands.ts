// Whole-document edits: the workflow's name and description, and replacing the document (a JSON
// view edit, a restored version, a merge, an import) as one step.
import { castDraft, type Draft, original } from "immer";
import { z } from "zod";
import { workflowDocument } from "../backend-shared.js";
import { refuse } from "../document-errors.js";
import type { CanvasNote, EditorContent, WorkflowDocument } from "../document-types.js";
import type { CommandHandler } from "./command-types.js";
import { canvasNote, NOTE_LIMITS } from "./note-commands.js";

export const NAME_MAX = 200;
export const DESCRIPTION_MAX = 5000;

/** A document checked by the backend's own schema (defaults filled in), or a refusal naming the first problem. */
export function checkDocument(raw: unknown): WorkflowDocument {
  const parsed = workflowDocument.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  refuse("EDITOR_DOCUMENT_INVALID", { path: issue?.path.join(".") ?? "", detail: issue?.message ?? "" });
}

const noteList = z.array(canvasNote).max(NOTE_LIMITS.notes);

export function checkNotes(raw: unknown): CanvasNote[] {
  const parsed = noteList.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  refuse("EDITOR_DOCUMENT_INVALID", { path: `notes.${issue?.path.join(".") ?? ""}`, detail: issue?.message ?? "" });
}

/** The document's keys in the schema's order (as the backend returns it), rebuilt only when they are not. */
function orderKeys(draft: Draft<EditorContent>): void {
  const keys = Object.keys(draft.document);
  const order = Object.keys(workflowDocument.shape).filter((k) => keys.includes(k));
  if (keys.join() === order.join()) return;
  const document = draft.document as Record<string, unknown>;
  draft.document = castDraft(Object.fromEntries(order.map((k) => [k, document[k]])) as WorkflowDocument);
}

export const replaceDocument: CommandHandler<"replace-document"> = (draft, command) => {
  const document = checkDocument(command.document);
  // Each part is replaced only when it differs, and each unchanged node, edge or field is kept as
  // the same object, so history stays small and the canvas re-renders only what changed.
  const before = (original(draft.document) ?? draft.document) as WorkflowDocument;
  const current = draft.document;
  if (current.name !== document.name) current.name = document.name;
  if (document.description === undefined) delete current.description;
  else if (current.description !== document.description) current.description = document.description;
  for (const key of ["state", "nodes", "edges"] as const) {
    const next = document[key] as unknown[];
    const previous = before[key] as unknown[];
    if (previous.length === next.length && JSON.stringify(previous) === JSON.stringify(next)) continue;
    const kept = next.map((item, i) => (JSON.stringify(previous[i]) === JSON.stringify(item) ? previous[i] : item));
    (current as Record<string, unknown>)[key] = castDraft(kept);
  }
  orderKeys(draft);
  if (command.notes !== undefined) draft.notes = castDraft(checkNotes(command.notes));
  return { labelKey: `editor.history.replaceDocument.${command.reason}`, params: {} };
};

export const updateWorkflow: CommandHandler<"update-workflow"> = (draft, command) => {
  const { document } = draft;
  if (command.name !== undefined) {
    if (typeof command.name !== "string" || command.name.trim() === "" || command.name.trim().length > NAME_MAX)
      refuse("EDITOR_NAME_INVALID", { max: NAME_MAX });
    document.name = command.name.trim();
  }
  if (command.description !== undefined) {
    if (command.description === null || command.description === "") delete document.description;
    else if (typeof command.description !== "string" || command.description.length > DESCRIPTION_MAX)
      refuse("EDITOR_DESCRIPTION_TOO_LONG", { max: DESCRIPTION_MAX });
    else document.description = command.description;
  }
  orderKeys(draft);
  const keys = [
    command.name !== undefined ? "name" : "",
    command.description !== undefined ? "description" : "",
  ].join();
  return { labelKey: "editor.history.updateWorkflow", params: {}, group: `workflow:${keys}` };
};
