// Journals the store as it changes, so a closed tab, a crash or a lost network loses at most about
// a second of work: a write follows a short quiet time after an edit, and at least every
// `maxWaitMs` while edits go on. Writes run one at a time, each with the newest state. When the
// document is back where it was saved, the journal is dropped instead. Look for a journal to offer
// (storage.find, journalOffer) before the first edit: the first write replaces it.
import type { DocumentError } from "../document-errors.js";
import { selectIsDirty } from "../document-selectors.js";
import type { DocumentState, DocumentStore } from "../document-store.js";
import { journalRecordOf } from "./journal-record.js";
import type { JournalStorage } from "./journal-storage.js";

export const JOURNAL_DELAY_MS = 300;
export const JOURNAL_MAX_WAIT_MS = 1000;

export interface JournalWriterOptions {
  store: DocumentStore;
  storage: JournalStorage;
  delayMs?: number;
  maxWaitMs?: number;
  /** A write that failed (storage full, database closed): told, never thrown. */
  onError?: (error: DocumentError, cause: unknown) => void;
}

export interface JournalWriter {
  /** Writes now (call on `pagehide` / `visibilitychange`), and waits for every write to end. */
  flush(): Promise<void>;
  /** Stops listening; a scheduled write is dropped (the caller flushes first when it should be kept). */
  dispose(): void;
}

const watched = (s: DocumentState) => [s.workflowId, s.content, s.history, s.savedEntryId, s.savedVersion] as const;

export function startJournalWriter(options: JournalWriterOptions): JournalWriter {
  const { store, storage, delayMs = JOURNAL_DELAY_MS, maxWaitMs = JOURNAL_MAX_WAIT_MS, onError } = options;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let firstChangeAt: number | undefined;
  let chain: Promise<void> = Promise.resolve();

  const write = async (state: DocumentState = store.getState()) => {
    const record = journalRecordOf(state, Date.now());
    if (!record) return;
    // A session without a single edit leaves the journal alone: it may hold an earlier session's
    // work that is still to be offered.
    const edited = state.history.past.length + state.history.future.length > 0 || state.history.floor !== null;
    try {
      if (selectIsDirty(state)) await storage.put(record);
      else if (edited) await storage.clear(record.workflowId);
    } catch (cause) {
      onError?.({ code: "EDITOR_JOURNAL_FAILED" }, cause);
    }
  };

  const enqueue = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    firstChangeAt = undefined;
    chain = chain.then(() => write());
    return chain;
  };

  const schedule = () => {
    const now = Date.now();
    firstChangeAt ??= now;
    if (timer !== undefined) clearTimeout(timer);
    const wait = Math.max(0, Math.min(delayMs, firstChangeAt + maxWaitMs - now));
    timer = setTimeout(enqueue, wait);
  };

  const unsubscribe = store.subscribe((state, previous) => {
    const now = watched(state);
    const before = watched(previous);
    if (now.every((value, i) => value === before[i])) return;
    // Another workflow opened in the same store: the previous one's last edits are written now.
    if (timer !== undefined && state.workflowId !== previous.workflowId) {
      clearTimeout(timer);
      timer = undefined;
      firstChangeAt = undefined;
      chain = chain.then(() => write(previous));
    }
    schedule();
  });

  return {
    flush: () => enqueue(),
    dispose() {
      unsubscribe();
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
