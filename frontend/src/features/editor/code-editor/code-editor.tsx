// The shared code editor (CodeMirror 6) for JavaScript, Python, JSON and {{…}} templates. CodeMirror
// is its own chunk, loaded the first time an editor is shown; until then a plain text area of the
// same height stands in, so nothing jumps and the value is already readable.
import { lazy, Suspense } from "react";
import type { CodeEditorProps } from "./code-editor-props";

export type { CodeEditorProps, CodeLanguage } from "./code-editor-props";
export type { ReferenceScope } from "./reference-completions";

const CodeMirrorEditor = lazy(() => import("./code-mirror-editor"));

export function CodeEditor(props: CodeEditorProps) {
  const lines = Math.max(1, props.minLines ?? 3);
  return (
    <Suspense
      fallback={
        <textarea
          readOnly
          aria-label={props["aria-label"]}
          value={props.value}
          rows={lines}
          className="w-full resize-none rounded-md border border-input bg-transparent px-3 py-1.5 font-mono text-xs"
        />
      }
    >
      <CodeMirrorEditor {...props} />
    </Suspense>
  );
}
