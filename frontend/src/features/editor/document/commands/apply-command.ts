// Runs one command against the content: a new immutable content sharing everything it did not
// touch, or a refusal. Only the document store calls this.
import { produce } from "immer";
import { CommandRefused, type DocumentError, documentError } from "../document-errors.js";
import type { EditorContent } from "../document-types.js";
import { duplicate, paste } from "./clipboard.js";
import type { Applied, Command, CommandHandler, CommandType } from "./command-types.js";
import { replaceDocument, updateWorkflow } from "./document-commands.js";
import { connect, disconnect, setEdgeLabel } from "./edge-commands.js";
import { addNode, applyLayout, moveNodes, removeElements, renameNode, updateNodeData } from "./node-commands.js";
import { addNote, updateNote } from "./note-commands.js";
import { addStateField, removeStateField, renameStateField, updateStateField } from "./state-field-commands.js";

const HANDLERS: { [T in CommandType]: CommandHandler<T> } = {
  "add-node": addNode,
  remove: removeElements,
  "move-nodes": moveNodes,
  "apply-layout": applyLayout,
  connect,
  disconnect,
  "set-edge-label": setEdgeLabel,
  "update-node-data": updateNodeData,
  "rename-node": renameNode,
  "add-state-field": addStateField,
  "update-state-field": updateStateField,
  "remove-state-field": removeStateField,
  "rename-state-field": renameStateField,
  "add-note": addNote,
  "update-note": updateNote,
  paste,
  duplicate,
  "replace-document": replaceDocument,
  "update-workflow": updateWorkflow,
};

export const COMMAND_TYPES = Object.keys(HANDLERS) as CommandType[];

export type ApplyOutcome = { ok: true; content: EditorContent; applied: Applied } | { ok: false; error: DocumentError };

export function applyCommand(content: EditorContent, command: Command): ApplyOutcome {
  const handler = (command && Object.hasOwn(HANDLERS, command.type) ? HANDLERS[command.type] : undefined) as
    | CommandHandler<CommandType>
    | undefined;
  if (!handler) return { ok: false, error: documentError("EDITOR_COMMAND_UNKNOWN") };
  let applied: Applied | undefined;
  try {
    const next = produce(content, (draft) => {
      applied = handler(draft, command as never);
    });
    return { ok: true, content: next, applied: applied as Applied };
  } catch (error) {
    if (error instanceof CommandRefused) return { ok: false, error: error.error };
    throw error;
  }
}
