// The whole workflow document as JSON, editable. The view shows the store's document and follows
// it; an edit is parsed after a pause and, when valid, applied as one replace-document command.
// An invalid edit lists its problems (line and column) while the store keeps the last valid
// document; the draft is kept if the panel closes, and offered again while the store has not moved.
import { useEffect, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { CodeEditor, type EditorDiagnostic } from "../code-editor/code-editor";
import {
  type DocumentError,
  type DocumentStore,
  documentText,
  selectDocument,
  useDocument,
  useDocumentStore,
} from "../document";
import { type ExplainedProblem, explainJsonProblems, SHOWN_PROBLEMS_MAX } from "./json-problems";
import { createJsonSync, type JsonEditOutcome } from "./json-sync";

/** An invalid draft left in a closed JSON view, with the store text it was written over. */
const drafts = new WeakMap<DocumentStore, { text: string; base: string }>();

type Shown =
  | { kind: "problems"; problems: ExplainedProblem[]; total: number }
  | { kind: "refused"; error: DocumentError };

export function JsonViewPanel() {
  const { t } = useTranslation();
  const store = useDocumentStore();
  const document = useDocument(selectDocument);
  const readOnly = useDocument((s) => s.readOnly);
  const value = useMemo(() => documentText(document), [document]);
  /** The store text the editor's own last edit produced (set before React sees the store move). */
  const echo = useRef<string | null>(null);
  const [shown, setShown] = useState<Shown | null>(null);
  const [cursor, setCursor] = useState<{ offset: number; serial: number } | null>(null);
  const [initial] = useState(() => {
    const draft = drafts.get(store);
    drafts.delete(store);
    return draft && draft.base === value ? draft.text : value;
  });
  /** The editor's text: what was typed, or the store's text when the store moved. */
  const [text, setText] = useState(initial);
  /** The editor's text as last typed (what a closing view keeps as a draft). */
  const textRef = useRef<string>(initial);
  const seenValue = useRef(value);

  const sync = useMemo(() => {
    const onOutcome = (outcome: JsonEditOutcome) => {
      if (outcome.kind === "applied") {
        echo.current = outcome.text;
        setShown(null);
      } else if (outcome.kind === "unchanged") setShown(null);
      else if (outcome.kind === "invalid") {
        const explained = explainJsonProblems(outcome.text, outcome.problems);
        setShown({ kind: "problems", problems: explained.slice(0, SHOWN_PROBLEMS_MAX), total: explained.length });
      } else setShown({ kind: "refused", error: outcome.error });
    };
    return createJsonSync(store, onOutcome);
  }, [store]);

  // A kept draft is checked again at once, so its problems are listed when the view reopens.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, for the text the view opened with
  useEffect(() => {
    if (initial !== value) {
      sync.edit(initial);
      sync.flush();
    }
  }, []);

  // The store moved to something the editor did not write: the store wins, a waiting edit is dropped.
  useEffect(() => {
    if (value === seenValue.current) return;
    seenValue.current = value;
    if (value === echo.current) return;
    // Forget the echo: an undo then redo back to it must show it again.
    echo.current = null;
    sync.cancel();
    textRef.current = value;
    setText(value);
    setShown(null);
  }, [value, sync]);

  // Closing the view applies a waiting valid edit and keeps an invalid one for next time.
  useEffect(
    () => () => {
      sync.flush();
      const text = textRef.current;
      const base = documentText(store.getState().content.document);
      if (text !== base) drafts.set(store, { text, base });
    },
    [store, sync],
  );

  const message = (p: ExplainedProblem) => t(p.key, p.params);
  const diagnostics: EditorDiagnostic[] = useMemo(
    () =>
      shown?.kind === "problems"
        ? shown.problems.map((p) => ({ from: p.offset, to: p.offset + p.length, message: t(p.key, p.params) }))
        : [],
    [shown, t],
  );

  return (
    <div className="flex h-full min-h-[24rem] flex-col" data-testid="json-view">
      <p className="border-b px-3 py-2 text-xs text-muted-foreground">{t("editor.json.hint")}</p>
      <div className="min-h-0 flex-1 [--json-key:#1e40af] [--json-keyword:#6b21a8] [--json-number:#9a3412] [--json-string:#166534] dark:[--json-key:#93c5fd] dark:[--json-keyword:#d8b4fe] dark:[--json-number:#fdba74] dark:[--json-string:#86efac]">
        <CodeEditor
          variant="document"
          language="json"
          value={text}
          readOnly={readOnly}
          aria-label={t("editor.json.label")}
          diagnostics={diagnostics}
          cursor={cursor}
          data-testid="workflow-json"
          onChange={(next) => {
            textRef.current = next;
            setText(next);
            sync.edit(next);
          }}
          onUndo={() => {
            sync.flush();
            store.getState().undo();
          }}
          onRedo={() => {
            sync.flush();
            store.getState().redo();
          }}
          onBlur={() => sync.flush()}
        />
      </div>
      <div role="status" aria-live="polite" className="max-h-48 shrink-0 overflow-y-auto border-t empty:hidden">
        {shown?.kind === "refused" && (
          <p className="px-3 py-2 text-sm text-destructive" data-testid="json-problem">
            {t(`editor.errors.${shown.error.code}`, shown.error.params ?? {})}
          </p>
        )}
        {shown?.kind === "problems" && (
          <>
            <p className="px-3 pt-2 text-xs font-medium">{t("editor.json.problems", { count: shown.total })}</p>
            <ul className="px-1 pb-2">
              {shown.problems.map((p) => (
                <li key={`${p.offset}:${p.key}:${p.params.path ?? ""}`}>
                  <button
                    type="button"
                    data-testid="json-problem"
                    className="w-full rounded-sm px-2 py-1 text-left text-sm text-destructive outline-none hover:bg-accent focus-visible:ring-[3px] focus-visible:ring-ring/60"
                    onClick={() => setCursor((c) => ({ offset: p.offset, serial: (c?.serial ?? 0) + 1 }))}
                  >
                    {message(p)}
                  </button>
                </li>
              ))}
            </ul>
            {shown.total > shown.problems.length && (
              <p className="px-3 pb-2 text-xs text-muted-foreground">
                {t("editor.json.moreProblems", { count: shown.total - shown.problems.length })}
              </p>
            )}
          </>
        )}
      </div>
    </div>
  );
}
