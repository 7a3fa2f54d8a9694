// Undo history as snapshots: every entry keeps the content before and after its command. Contents
// are immutable and share every part a command did not touch (immer's structural sharing), so an
// entry costs only the path it changed, and undo gives back the very object it had, byte for byte.
import type { EditorContent } from "./document-types.js";

export type HistoryParams = Record<string, string | number>;

export interface HistoryEntry {
  id: number;
  /** The command's name, e.g. `add-node`. */
  command: string;
  /** Locale key of the entry's label (editor.history.*) and the values it names. */
  labelKey: string;
  params: HistoryParams;
  /** Consecutive entries of one open group (keystrokes in one field) merge into one. */
  group?: string;
  before: EditorContent;
  after: EditorContent;
}

export interface History {
  past: HistoryEntry[];
  future: HistoryEntry[];
  /** The group the newest entry may still grow in; closed by undo, redo, save and closeGroup(). */
  openGroup: string | null;
  nextId: number;
  /**
   * The id of the newest entry dropped off the old end (bounded history), or null when none was:
   * the content before the oldest kept entry is that entry's `after`, not the loaded content.
   */
  floor: number | null;
}

export const EMPTY_HISTORY: History = { past: [], future: [], openGroup: null, nextId: 1, floor: null };

export const DEFAULT_HISTORY_LIMIT = 200;

export type NewEntry = Omit<HistoryEntry, "id">;

/** Adds a command's entry: merged into the newest when both belong to the open group. */
export function recordEntry(history: History, entry: NewEntry, limit: number): History {
  const top = history.past.at(-1);
  if (entry.group !== undefined && top && history.openGroup === entry.group && top.group === entry.group) {
    const merged: HistoryEntry = { ...top, params: entry.params, after: entry.after };
    return { ...history, past: [...history.past.slice(0, -1), merged], future: [] };
  }
  const past = [...history.past, { ...entry, id: history.nextId }];
  let floor = history.floor;
  if (past.length > limit) floor = (past.splice(0, past.length - limit).at(-1) as HistoryEntry).id;
  return { past, future: [], openGroup: entry.group ?? null, nextId: history.nextId + 1, floor };
}

/** The entry to undo and the history after it, or undefined when there is nothing to undo. */
export function undoStep(history: History): { entry: HistoryEntry; history: History } | undefined {
  const entry = history.past.at(-1);
  if (!entry) return undefined;
  return {
    entry,
    history: { ...history, past: history.past.slice(0, -1), future: [entry, ...history.future], openGroup: null },
  };
}

export function redoStep(history: History): { entry: HistoryEntry; history: History } | undefined {
  const entry = history.future[0];
  if (!entry) return undefined;
  return {
    entry,
    history: { ...history, past: [...history.past, entry], future: history.future.slice(1), openGroup: null },
  };
}

/** The id of the newest applied entry (or of the newest dropped one), or null at the start of the history. */
export function currentEntryId(history: History): number | null {
  return history.past.at(-1)?.id ?? history.floor;
}

export function closeGroup(history: History): History {
  return history.openGroup === null ? history : { ...history, openGroup: null };
}
