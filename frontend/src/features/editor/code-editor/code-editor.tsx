// The shared code editor (CodeMirror 6) for JavaScript, Python, JSON and {{…}} templates, in
// settings fields and for the JSON view's whole document. CodeMirror is its own chunk, loaded the
// first time an editor is shown. A settings field first draws a plain text area of the same height
// with its text, and makes its CodeMirror view in a task of its own once the browser is idle:
// selecting a node shows its settings at once, and a form with several editors does not build them
// all in one long task. Focusing the text area makes the view at once (and focuses it).
import { lazy, Suspense, useEffect, useRef, useState } from "react";
import type { CodeEditorProps } from "./code-editor-props";

export type { CodeEditorProps, CodeLanguage, EditorDiagnostic } from "./code-editor-props";
export type { ReferenceScope } from "./reference-completions";

const loadEditor = () => import("./code-mirror-editor");
const CodeMirrorEditor = lazy(loadEditor);

/** Loads CodeMirror's chunk and the JavaScript grammar once the browser is idle (the settings
 * panel asks when the editor opens): the first code field shown then waits for neither. */
export function preloadCodeEditor(): () => void {
  return whenIdle(() => void loadEditor().then((editor) => editor.preloadLanguages()));
}

/** Runs `fn` once the browser has painted and has nothing more urgent to do (at the latest after
 * 300 ms); returns the cancel function. Browsers without requestIdleCallback wait for a frame. */
function whenIdle(fn: () => void): () => void {
  if (typeof window.requestIdleCallback === "function") {
    const handle = window.requestIdleCallback(fn, { timeout: 300 });
    return () => window.cancelIdleCallback(handle);
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const frame = requestAnimationFrame(() => {
    timer = setTimeout(fn, 0);
  });
  return () => {
    cancelAnimationFrame(frame);
    if (timer !== undefined) clearTimeout(timer);
  };
}

export function CodeEditor(props: CodeEditorProps) {
  const document = props.variant === "document";
  const [live, setLive] = useState(document);
  const focusOnMount = useRef(false);
  useEffect(() => {
    if (live) return;
    return whenIdle(() => setLive(true));
  }, [live]);
  const lines = Math.max(1, props.minLines ?? 3);
  const standIn = document ? (
    <div className="h-full" data-testid={props["data-testid"]} />
  ) : (
    <textarea
      readOnly
      aria-label={props["aria-label"]}
      value={props.value}
      rows={lines}
      className="w-full resize-none rounded-md border border-input bg-transparent px-3 py-1.5 font-mono text-xs"
      onFocus={() => {
        focusOnMount.current = true;
        setLive(true);
      }}
    />
  );
  if (!live) return standIn;
  return (
    <Suspense fallback={standIn}>
      <CodeMirrorEditor {...props} autoFocus={focusOnMount.current} />
    </Suspense>
  );
}
