// Sticky notes on the canvas.
import { castDraft } from "immer";
import { z } from "zod";
import { refuse } from "../document-errors.js";
import { type CanvasNote, NOTE_COLORS } from "../document-types.js";
import { isElementId, nodeIdAllocator } from "../element-ids.js";
import type { CommandHandler } from "./command-types.js";
import { checkPosition } from "./node-commands.js";

export const NOTE_LIMITS = { text: 20_000, notes: 500, size: 10_000 } as const;

const dimension = z.number().min(1).max(NOTE_LIMITS.size);

/** A note as stored: the same shape is accepted from clipboard text and the journal. */
export const canvasNote = z.strictObject({
  id: z.string().refine(isElementId),
  position: z.strictObject({ x: z.number(), y: z.number() }),
  size: z.strictObject({ width: dimension, height: dimension }).optional(),
  text: z.string().max(NOTE_LIMITS.text),
  color: z.enum(NOTE_COLORS).optional(),
});

function checkChanges(changes: { text?: unknown; size?: unknown; color?: unknown }): void {
  const parsed = canvasNote.pick({ text: true, size: true, color: true }).partial().safeParse(changes);
  if (!parsed.success) refuse("EDITOR_NOTE_INVALID", { max: NOTE_LIMITS.text });
}

export const addNote: CommandHandler<"add-note"> = (draft, { note }) => {
  if (draft.notes.length >= NOTE_LIMITS.notes) refuse("EDITOR_TOO_MANY_NOTES", { max: NOTE_LIMITS.notes });
  const ids = nodeIdAllocator(draft);
  if (note.id !== undefined && !isElementId(note.id))
    refuse("EDITOR_ID_INVALID", { id: String(note.id).slice(0, 100) });
  if (note.id !== undefined && ids.has(note.id)) refuse("EDITOR_ID_TAKEN", { id: note.id });
  const { text = "", size, color } = note;
  checkChanges({ text, size, color });
  const id = note.id ?? ids.next("note");
  const added: CanvasNote = {
    id,
    position: checkPosition(note.position),
    text,
    ...(size ? { size: { width: size.width, height: size.height } } : {}),
    ...(color ? { color } : {}),
  };
  draft.notes.push(castDraft(added));
  return { labelKey: "editor.history.addNote", params: {}, created: [id] };
};

export const updateNote: CommandHandler<"update-note"> = (draft, { id, changes }) => {
  const note = draft.notes.find((n) => n.id === id);
  if (!note) refuse("EDITOR_NOTE_NOT_FOUND", { id: String(id) });
  checkChanges(changes);
  if (changes.text !== undefined) note.text = changes.text;
  if (changes.size !== undefined) note.size = { width: changes.size.width, height: changes.size.height };
  if (changes.color !== undefined) note.color = changes.color;
  const keys = Object.keys(changes).sort().join(",");
  return { labelKey: "editor.history.updateNote", params: {}, group: `note:${id}:${keys}` };
};
