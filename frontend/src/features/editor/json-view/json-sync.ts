// The JSON view's edits reach the store here: typing is parsed after a short pause, and a valid
// text becomes one `replace-document` command (one undo step per burst of typing). An invalid text
// answers its problems and leaves the store alone, so the last valid document is never lost.
import { type DocumentError, type DocumentStore, documentText, type JsonProblem, parseDocumentText } from "../document";

/** How long typing may pause before the text is parsed and applied. */
export const JSON_EDIT_DELAY_MS = 500;

export type JsonEditOutcome =
  | { kind: "applied"; text: string }
  | { kind: "unchanged" }
  | { kind: "invalid"; text: string; problems: JsonProblem[] }
  | { kind: "refused"; error: DocumentError };

export interface JsonSync {
  /** The editor's text changed: apply it after the pause (a newer edit replaces a waiting one). */
  edit(text: string): void;
  /** Applies a waiting edit now (before undo, on blur, when the view closes). */
  flush(): void;
  /** Drops a waiting edit (the store changed under it, and the store wins). */
  cancel(): void;
  readonly pending: boolean;
}

export function createJsonSync(
  store: DocumentStore,
  onOutcome: (outcome: JsonEditOutcome) => void,
  delayMs = JSON_EDIT_DELAY_MS,
): JsonSync {
  let waiting: string | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;

  const stop = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };

  const apply = (text: string) => {
    const current = store.getState().content.document;
    if (text === documentText(current)) return onOutcome({ kind: "unchanged" });
    const parsed = parseDocumentText(text);
    if (!parsed.ok) return onOutcome({ kind: "invalid", text, problems: parsed.problems });
    const result = store.getState().dispatch({ type: "replace-document", document: parsed.document, reason: "json" });
    if (!result.ok) return onOutcome({ kind: "refused", error: result.error });
    onOutcome({ kind: "applied", text: documentText(store.getState().content.document) });
  };

  return {
    edit(text) {
      stop();
      waiting = text;
      timer = setTimeout(() => this.flush(), delayMs);
    },
    flush() {
      stop();
      const text = waiting;
      waiting = null;
      if (text !== null) apply(text);
    },
    cancel() {
      stop();
      waiting = null;
    },
    get pending() {
      return waiting !== null;
    },
  };
}
