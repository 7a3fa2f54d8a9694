// A settings field's text is kept in the field while it is typed and written to the document a
// moment later, not on every keystroke: a document change re-renders the canvas, the outline, the
// Problems badge and the JSON view of a 500-node workflow, which costs far more than drawing a
// letter. The writes of one burst still merge into one undo step (the store's open group), and
// the wait is short enough that the journal still loses at most a second (see DRAFT_MAX_WAIT_MS).

/** Typing pauses this long: the text is written. */
export const DRAFT_IDLE_MS = 200;
/** Typing goes on: the text is written at least this often. The journal writer waits at most
 * `JOURNAL_MAX_WAIT_MS - DRAFT_MAX_WAIT_MS` after a document change (save-session.ts), so a
 * keystroke still reaches the journal within JOURNAL_MAX_WAIT_MS (a second). */
export const DRAFT_MAX_WAIT_MS = 700;

export interface DraftCommitter<T> {
  /** A new value was typed: written after a pause (or the longest wait). */
  change(value: T): void;
  /** Writes a waiting value now (blur, a shortcut, the field going away). */
  flush(): void;
  /** Whether a typed value waits to be written. */
  pending(): boolean;
  /** Forgets a waiting value without writing it. */
  cancel(): void;
}

export function createDraftCommitter<T>(
  write: (value: T) => void,
  options: { idleMs?: number; maxWaitMs?: number } = {},
): DraftCommitter<T> {
  const { idleMs = DRAFT_IDLE_MS, maxWaitMs = DRAFT_MAX_WAIT_MS } = options;
  let waiting: { value: T } | null = null;
  let firstAt: number | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;

  const stop = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    firstAt = null;
  };
  const flush = () => {
    stop();
    const next = waiting;
    waiting = null;
    if (next) write(next.value);
  };
  return {
    change(value) {
      waiting = { value };
      const now = Date.now();
      firstAt ??= now;
      if (timer !== null) clearTimeout(timer);
      timer = setTimeout(flush, Math.max(0, Math.min(idleMs, firstAt + maxWaitMs - now)));
    },
    flush,
    pending: () => waiting !== null,
    cancel() {
      stop();
      waiting = null;
    },
  };
}
