// The state schema: fields, types, reducers, defaults; renaming a field carries every reference
// to it along, in one step.
import { castDraft, type Draft } from "immer";
import { DOCUMENT_LIMITS, fieldMentions, stateField, templateTexts } from "../backend-shared.js";
import { refuse } from "../document-errors.js";
import type { EditorContent, StateField, WorkflowNode } from "../document-types.js";
import { copyJsonValue } from "../json-values.js";
import { renameFieldInText } from "../references.js";
import { getAtPath, setAtPath } from "../setting-paths.js";
import type { CommandHandler } from "./command-types.js";

/** A field checked by the backend's own schema; the name's problem is told apart from the others. */
export function checkField(field: unknown): StateField {
  const parsed = stateField.safeParse(field);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (issue?.path[0] === "name")
    refuse("EDITOR_STATE_FIELD_NAME_INVALID", {
      name: String((field as { name?: unknown })?.name ?? "").slice(0, 100),
    });
  refuse("EDITOR_STATE_FIELD_INVALID", { detail: `${issue?.path.join(".") ?? ""}: ${issue?.message ?? ""}` });
}

function checkNewName(draft: Draft<EditorContent>, name: string): void {
  if (draft.document.state.some((f) => f.name === name)) refuse("EDITOR_STATE_FIELD_EXISTS", { name });
  if (draft.document.nodes.some((n) => n.id === name)) refuse("EDITOR_STATE_FIELD_IS_NODE_ID", { name });
}

function fieldIndex(draft: Draft<EditorContent>, name: string): number {
  const index = draft.document.state.findIndex((f) => f.name === name);
  if (index < 0) refuse("EDITOR_STATE_FIELD_NOT_FOUND", { name: String(name).slice(0, 100) });
  return index;
}

export const addStateField: CommandHandler<"add-state-field"> = (draft, command) => {
  const field = checkField(copyJsonValue(command.field));
  checkNewName(draft, field.name);
  const { state } = draft.document;
  if (state.length >= DOCUMENT_LIMITS.stateFields)
    refuse("EDITOR_TOO_MANY_STATE_FIELDS", { max: DOCUMENT_LIMITS.stateFields });
  const index = command.index === undefined ? state.length : Math.max(0, Math.min(state.length, command.index));
  state.splice(index, 0, castDraft(field));
  return { labelKey: "editor.history.addStateField", params: { name: field.name } };
};

export const updateStateField: CommandHandler<"update-state-field"> = (draft, command) => {
  const index = fieldIndex(draft, command.name);
  const current = draft.document.state[index] as StateField;
  const changes = copyJsonValue(command.changes ?? {}) as Record<string, unknown>;
  if ("name" in changes) refuse("EDITOR_STATE_FIELD_INVALID", { detail: "name: use rename-state-field" });
  const next: Record<string, unknown> = { ...current, ...changes };
  for (const key of command.remove ?? []) delete next[key];
  const field = checkField(next);
  // Keys keep their places; only the changed ones are written.
  const target = draft.document.state[index] as Draft<StateField>;
  for (const key of command.remove ?? []) delete target[key];
  for (const [key, value] of Object.entries(field)) {
    if (JSON.stringify(value) !== JSON.stringify((current as Record<string, unknown>)[key]))
      (target as Record<string, unknown>)[key] = castDraft(value);
  }
  const keys = Object.keys(changes).sort().join(",");
  return {
    labelKey: "editor.history.updateStateField",
    params: { name: command.name },
    group: `field:${command.name}:${keys}`,
  };
};

export const removeStateField: CommandHandler<"remove-state-field"> = (draft, { name }) => {
  const index = fieldIndex(draft, name);
  draft.document.state.splice(index, 1);
  return { labelKey: "editor.history.removeStateField", params: { name } };
};

/** Rewrites, in one node's data, every template reference and every setting that names `from`. */
function renameInNode(node: Draft<WorkflowNode>, from: string, to: string): void {
  for (const { path, text } of templateTexts(node.type, node.data)) {
    const renamed = renameFieldInText(text, from, to);
    if (renamed !== text) setAtPath(node.data, path, renamed);
  }
  for (const mention of fieldMentions(node.type, node.data)) {
    if (mention.name !== from) continue;
    if (mention.form === "key") {
      const objectPath = mention.path.slice(0, -1);
      const object = getAtPath(node.data, objectPath) as Record<string, unknown>;
      if (Object.hasOwn(object, to)) refuse("EDITOR_STATE_FIELD_EXISTS", { name: to });
      // Rebuilt in order, so the renamed key keeps its place.
      const rebuilt = Object.fromEntries(
        Object.entries(object).map(([key, value]) => [key === from ? to : key, value]),
      );
      setAtPath(node.data, objectPath, rebuilt);
    } else {
      const value = getAtPath(node.data, mention.path) as string;
      setAtPath(node.data, mention.path, mention.form === "path" ? to + value.slice(from.length) : to);
    }
  }
}

export const renameStateField: CommandHandler<"rename-state-field"> = (draft, { from, to }) => {
  const index = fieldIndex(draft, from);
  if (from === to) return { labelKey: "editor.history.renameStateField", params: { from, to } };
  const field = draft.document.state[index] as Draft<StateField>;
  checkField({ ...field, name: to });
  checkNewName(draft, to);
  field.name = to;
  for (const node of draft.document.nodes) renameInNode(node, from, to);
  return { labelKey: "editor.history.renameStateField", params: { from, to } };
};
