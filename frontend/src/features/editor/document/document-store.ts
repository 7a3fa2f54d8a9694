// The workflow document store: the single source of truth of the editor. Canvas, inspector, state
// editor and JSON view read it through selectors and change it only with dispatch(command); every
// change is one labelled undo step. It also knows the version the document was loaded or saved as
// (for If-Match) and whether there are unsaved changes.
import { freeze } from "immer";
import { createStore, type StoreApi } from "zustand/vanilla";
import { type ApplyOutcome, applyCommand } from "./commands/apply-command.js";
import type { Command, CommandResult } from "./commands/command-types.js";
import { checkDocument, checkNotes } from "./commands/document-commands.js";
import { CommandRefused, type DocumentError, documentError } from "./document-errors.js";
import type { EditorContent } from "./document-types.js";
import {
  closeGroup,
  currentEntryId,
  DEFAULT_HISTORY_LIMIT,
  EMPTY_HISTORY,
  type History,
  type HistoryEntry,
  recordEntry,
  redoStep,
  undoStep,
} from "./history.js";

/** What the local journal keeps of a store, and gives back after a crash. */
export interface DocumentSnapshot {
  workflowId: string;
  /** The saved version the edits started from. */
  baseVersion: number;
  content: EditorContent;
  history: History;
  /** The history entry the saved version corresponds to (null: the start of the history). */
  savedEntryId: number | null;
}

export interface DocumentState {
  workflowId: string | null;
  content: EditorContent;
  history: History;
  /** The version the content was loaded or last saved as: send it as If-Match. */
  savedVersion: number | null;
  savedEntryId: number | null;
  /** A version preview: every command is refused. */
  readOnly: boolean;

  /** Opens a workflow's document (and notes): history starts empty, nothing unsaved. */
  load(input: {
    workflowId: string;
    version: number;
    document: unknown;
    notes?: unknown;
    readOnly?: boolean;
  }): { ok: true } | { ok: false; error: DocumentError };
  dispatch(command: Command): CommandResult;
  undo(): boolean;
  redo(): boolean;
  /** Undoes or redoes to just after the entry with this id (null: before every kept entry). */
  jumpTo(entryId: number | null): boolean;
  /** Ends the open group, so the next keystroke starts a new undo step (call on a field's blur). */
  closeGroup(): void;
  /**
   * The content was saved as `version`: the current content, or that of history entry `entryId`
   * (a save sent before the edits made while it was on its way; null: the start of the history).
   */
  markSaved(version: number, entryId?: number | null): void;
  /**
   * The edits now stand on the server's `version` (after merging them into it): If-Match sends it,
   * and no history entry is that version, so the document stays unsaved until it is saved.
   */
  rebase(version: number): void;
  /** Puts back a journalled session: content, history and what was saved. */
  restore(snapshot: DocumentSnapshot): { ok: true } | { ok: false; error: DocumentError };
}

export type DocumentStore = StoreApi<DocumentState>;

/** A savedEntryId no entry has: the saved version is in no step of the history (after a rebase). */
export const NO_SAVED_ENTRY = -1;

const EMPTY_CONTENT: EditorContent = freeze(
  { document: { name: "", state: [], nodes: [], edges: [] }, notes: [] },
  true,
);

export interface DocumentStoreOptions {
  historyLimit?: number;
}

export function createDocumentStore(options: DocumentStoreOptions = {}): DocumentStore {
  const limit = Math.max(1, options.historyLimit ?? DEFAULT_HISTORY_LIMIT);
  return createStore<DocumentState>()((set, get) => {
    const step = (move: typeof undoStep, pick: (entry: HistoryEntry) => EditorContent): boolean => {
      const result = move(get().history);
      if (!result) return false;
      set({ content: pick(result.entry), history: result.history });
      return true;
    };
    return {
      workflowId: null,
      content: EMPTY_CONTENT,
      history: EMPTY_HISTORY,
      savedVersion: null,
      savedEntryId: null,
      readOnly: false,

      load({ workflowId, version, document, notes, readOnly = false }) {
        try {
          const content = freeze({ document: checkDocument(document), notes: checkNotes(notes ?? []) }, true);
          set({ workflowId, content, history: EMPTY_HISTORY, savedVersion: version, savedEntryId: null, readOnly });
          return { ok: true };
        } catch (error) {
          if (error instanceof CommandRefused) return { ok: false, error: error.error };
          throw error;
        }
      },

      dispatch(command) {
        const state = get();
        if (state.readOnly) return { ok: false, error: documentError("EDITOR_READ_ONLY") };
        if (state.workflowId === null) return { ok: false, error: documentError("EDITOR_NOT_LOADED") };
        const outcome: ApplyOutcome = applyCommand(state.content, command);
        if (!outcome.ok) return outcome;
        const created = outcome.applied.created ?? [];
        if (outcome.content === state.content) return { ok: true, changed: false, created };
        const { labelKey, params, group } = outcome.applied;
        const history = recordEntry(
          state.history,
          {
            command: command.type,
            labelKey,
            params,
            ...(group !== undefined ? { group } : {}),
            before: state.content,
            after: outcome.content,
          },
          limit,
        );
        set({ content: outcome.content, history });
        return { ok: true, changed: true, created };
      },

      undo: () => step(undoStep, (entry) => entry.before),
      redo: () => step(redoStep, (entry) => entry.after),

      jumpTo(entryId) {
        const { history } = get();
        if (entryId === null) {
          while (get().undo());
          return true;
        }
        const inPast = history.past.some((e) => e.id === entryId);
        const inFuture = history.future.some((e) => e.id === entryId);
        if (!inPast && !inFuture) return false;
        const move = inPast ? get().undo : get().redo;
        while (currentEntryId(get().history) !== entryId) move();
        return true;
      },

      closeGroup() {
        set({ history: closeGroup(get().history) });
      },

      markSaved(version, entryId) {
        const { history } = get();
        const savedEntryId = entryId === undefined ? currentEntryId(history) : entryId;
        set({ savedVersion: version, savedEntryId, history: closeGroup(history) });
      },

      rebase(version) {
        set({ savedVersion: version, savedEntryId: NO_SAVED_ENTRY, history: closeGroup(get().history) });
      },

      restore(snapshot) {
        try {
          // Checked, then kept as the very objects the history holds, so undo after a restore
          // gives back exactly what was there.
          const { content: saved, history: kept } = (snapshot ?? {}) as Partial<DocumentSnapshot>;
          if (!saved || !kept || !Array.isArray(kept.past) || !Array.isArray(kept.future))
            return {
              ok: false,
              error: documentError("EDITOR_DOCUMENT_INVALID", { path: "", detail: "not a journal" }),
            };
          checkDocument(snapshot.content.document);
          checkNotes(snapshot.content.notes);
          const content = freeze(snapshot.content, true);
          const history = freeze(snapshot.history, true);
          set({
            workflowId: snapshot.workflowId,
            content,
            history: { ...history, openGroup: null },
            savedVersion: snapshot.baseVersion,
            savedEntryId: snapshot.savedEntryId,
            readOnly: false,
          });
          return { ok: true };
        } catch (error) {
          if (error instanceof CommandRefused) return { ok: false, error: error.error };
          throw error;
        }
      },
    };
  });
}
