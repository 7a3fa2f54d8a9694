// Saving one opened workflow: the save queue, what the person is told (saving, failed with the
// API's error, a conflict with the server's newer version), the way out of a conflict (review,
// merge, overwrite) and the local journal (offered back on opening, written while editing).
// The document store stays the only place edits live: a failed save leaves it untouched.
import { createStore, type StoreApi } from "zustand/vanilla";
import { queryClient } from "@/app/query-client";
import { workflowsQuery } from "@/features/workflows/workflow-queries";
import { ApiError, api, type Workflow, type WorkflowDocument, type WorkflowSummary } from "@/lib/api";
import {
  createDocumentStore,
  type DocumentStore,
  type JournalOffer,
  type JournalStorage,
  type JournalWriter,
  journalOffer,
  openJournalStorage,
  selectCurrentEntryId,
  selectIsDirty,
  startJournalWriter,
} from "../document";
import { JOURNAL_MAX_WAIT_MS } from "../document/journal/journal-writer";
import { DRAFT_MAX_WAIT_MS } from "../inspector/draft-commit";
import type { EditorUiStore } from "../layout/editor-ui-store";
import { type ChangeSummary, sameValue, summarizeChanges } from "./change-summary";
import { type MergeConflict, mergeDocuments } from "./merge-documents";
import { createSaveQueue } from "./save-queue";

/** A save the server refused because someone saved after the version the edits started from. */
export interface SaveConflict {
  baseVersion: number;
  /** Null when the base version could not be read (then nothing can be merged). */
  base: WorkflowDocument | null;
  server: Workflow;
  /** What changed on the server since the base version. */
  changes: ChangeSummary | null;
  /** After a merge: what could not be merged (the server's side was kept). */
  merged: MergeConflict[] | null;
}

export interface SaveSessionState {
  saving: boolean;
  /** The last save's failure (an ApiError, or anything thrown), until a save succeeds. */
  error: unknown;
  conflict: SaveConflict | null;
  /** Whether the conflict dialog is shown (closed while the person reviews the server's version). */
  conflictOpen: boolean;
  /** Unsaved edits from an earlier session to offer back. */
  offer: JournalOffer | null;
  /** The local journal does not work here: edits are not kept if the tab closes. */
  journalFailed: boolean;
  save(): Promise<void>;
  openConflict(open: boolean): void;
  review(): void;
  endReview(): void;
  merge(): void;
  overwrite(): Promise<void>;
  restoreOffer(): void;
  discardOffer(): Promise<void>;
  /** Opens the journal and looks for an offer; returns the stop function. */
  startJournal(): () => void;
}

export type SaveSession = StoreApi<SaveSessionState>;

/** Puts a saved workflow into the query cache: its own entry and its line in the list. */
function remember(workflow: Workflow): void {
  queryClient.setQueryData(["workflows", workflow.id], workflow);
  queryClient.setQueryData<WorkflowSummary[]>(workflowsQuery.queryKey, (list) => {
    if (!list) return list;
    const { document: _document, ...summary } = workflow;
    return [summary, ...list.filter((item) => item.id !== workflow.id)];
  });
  void queryClient.invalidateQueries({ queryKey: workflowsQuery.queryKey, exact: true });
}

export function isConflict(error: unknown): error is ApiError {
  return error instanceof ApiError && error.code === "WORKFLOW_VERSION_CONFLICT";
}

export function createSaveSession(options: {
  workflowId: string;
  document: DocumentStore;
  ui: EditorUiStore;
  /** The workflow as the server gave it when the page opened (for the journal offer). */
  opened: Workflow;
}): SaveSession {
  const { workflowId, document, ui, opened } = options;
  let storage: JournalStorage | null = null;

  return createStore<SaveSessionState>()((set, get) => {
    /** Sends the document as it is now; with `ifVersion`, instead of the version it stands on. */
    async function send(ifVersion?: number): Promise<void> {
      const state = document.getState();
      const baseVersion = state.savedVersion;
      if (state.readOnly || state.workflowId !== workflowId || baseVersion === null) return;
      // Later keystrokes must make a step of their own, so the step sent is the one marked saved.
      state.closeGroup();
      const sent = document.getState();
      const entryId = selectCurrentEntryId(sent);
      set({ saving: true });
      try {
        const result = await api.saveWorkflow(workflowId, sent.content.document, ifVersion ?? baseVersion);
        document.getState().markSaved(result.workflow.version, entryId);
        remember(result.workflow);
        set({ error: null, conflict: null, conflictOpen: false });
      } catch (error) {
        if (isConflict(error)) await conflictFrom(baseVersion, sent.content.document, entryId, error);
        else set({ error });
      } finally {
        set({ saving: false });
      }
    }

    async function conflictFrom(
      baseVersion: number,
      mine: WorkflowDocument,
      entryId: number | null,
      refusal: ApiError,
    ): Promise<void> {
      try {
        const server = await api.getWorkflow(workflowId);
        // The same document is already there (an earlier save whose answer was lost on the way).
        if (sameValue(server.document, mine)) {
          document.getState().markSaved(server.version, entryId);
          remember(server);
          set({ error: null, conflict: null, conflictOpen: false });
          return;
        }
        const base = await api
          .getVersion(workflowId, baseVersion)
          .then((version) => version.document)
          .catch(() => null);
        const changes = base ? summarizeChanges(base, server.document) : null;
        set({ error: refusal, conflict: { baseVersion, base, server, changes, merged: null }, conflictOpen: true });
      } catch (error) {
        set({ error });
      }
    }

    const queue = createSaveQueue(async () => {
      // While a conflict waits for a choice, saving again would only be refused again; after a
      // merge the edits stand on the server's version and save as usual.
      const conflict = get().conflict;
      if ((conflict && !conflict.merged) || !selectIsDirty(document.getState())) return;
      await send();
    });

    return {
      saving: false,
      error: null,
      conflict: null,
      conflictOpen: false,
      offer: null,
      journalFailed: false,

      save() {
        // A conflict still waiting for a choice: saving again shows the choices again.
        const conflict = get().conflict;
        if (conflict && !conflict.merged) {
          set({ conflictOpen: true });
          ui.getState().setPreview(null);
          return Promise.resolve();
        }
        return queue.request();
      },

      openConflict: (conflictOpen) => set({ conflictOpen }),

      review() {
        const conflict = get().conflict;
        if (!conflict) return;
        const store = createDocumentStore();
        const loaded = store.getState().load({
          workflowId,
          version: conflict.server.version,
          document: conflict.server.document,
          readOnly: true,
        });
        if (!loaded.ok) return;
        ui.getState().setPreview({ version: conflict.server.version, store });
        set({ conflictOpen: false });
      },

      endReview() {
        ui.getState().setPreview(null);
        set({ conflictOpen: get().conflict !== null });
      },

      merge() {
        const conflict = get().conflict;
        if (!conflict?.base) return;
        const mine = document.getState().content.document;
        const { document: merged, conflicts } = mergeDocuments(conflict.base, mine, conflict.server.document);
        const result = document.getState().dispatch({ type: "replace-document", document: merged, reason: "merge" });
        if (!result.ok) {
          set({ error: result.error });
          return;
        }
        // Your edits now stand on the server's version: the next save sends it as If-Match.
        document.getState().rebase(conflict.server.version);
        ui.getState().setPreview(null);
        remember(conflict.server);
        set({ error: null, conflict: { ...conflict, merged: conflicts }, conflictOpen: true });
      },

      async overwrite() {
        const conflict = get().conflict;
        if (!conflict) return;
        ui.getState().setPreview(null);
        await send(conflict.server.version);
      },

      restoreOffer() {
        const offer = get().offer;
        if (!offer) return;
        const restored = document.getState().restore(offer.record);
        set({ offer: null, ...(restored.ok ? {} : { error: restored.error }) });
      },

      async discardOffer() {
        set({ offer: null });
        try {
          await storage?.clear(workflowId);
        } catch {
          set({ journalFailed: true });
        }
      },

      startJournal() {
        let stopped = false;
        let writer: JournalWriter | null = null;
        const flush = () => void writer?.flush();
        const onVisibility = () => {
          if (window.document.visibilityState === "hidden") flush();
        };
        const failed = () => set({ journalFailed: true });
        (async () => {
          const opened_ = await openJournalStorage();
          if (stopped) {
            opened_.close();
            return;
          }
          storage = opened_;
          const record = await opened_.find(workflowId);
          if (stopped) return;
          // The offer only compares the journalled document with the server's as JSON.
          const server = { version: opened.version, document: opened.document } as Parameters<typeof journalOffer>[1];
          const offer = journalOffer(record, server);
          if (offer) set({ offer });
          // Typed text reaches the document up to DRAFT_MAX_WAIT_MS late: the journal makes up for it.
          writer = startJournalWriter({
            store: document,
            storage: opened_,
            onError: failed,
            maxWaitMs: JOURNAL_MAX_WAIT_MS - DRAFT_MAX_WAIT_MS,
          });
          window.addEventListener("pagehide", flush);
          window.document.addEventListener("visibilitychange", onVisibility);
        })().catch(failed);
        return () => {
          stopped = true;
          window.removeEventListener("pagehide", flush);
          window.document.removeEventListener("visibilitychange", onVisibility);
          const ending = writer;
          const closing = storage;
          writer = null;
          storage = null;
          if (ending) {
            void ending.flush().finally(() => {
              ending.dispose();
              closing?.close();
            });
          } else closing?.close();
        };
      },
    };
  });
}
