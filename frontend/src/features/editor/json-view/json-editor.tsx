// CodeMirror 6 over the document's JSON text (its own chunk: loaded when the JSON tab opens).
// Undo and redo go to the document store, not to CodeMirror, so the JSON view and the canvas share
// one history. Text set from outside (the store changed) is marked so it is not taken for typing.
import { defaultKeymap } from "@codemirror/commands";
import { json } from "@codemirror/lang-json";
import { bracketMatching, foldGutter, foldKeymap, HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { type Diagnostic, lintGutter, setDiagnostics } from "@codemirror/lint";
import { Annotation, Compartment, EditorState } from "@codemirror/state";
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { tags } from "@lezer/highlight";
import { useEffect, useRef } from "react";

const fromOutside = Annotation.define<boolean>();

/** The text's name for screen readers, and a tab stop of its own (the scrolling text must be reachable). */
function contentAttributes(label: string) {
  return EditorView.contentAttributes.of({ "aria-label": label, tabindex: "0" });
}

/** A key command that did its work (CodeMirror stops looking for another). */
function handled(action: () => void): true {
  action();
  return true;
}

// Colours come from CSS variables set on the host (light and dark values, both readable).
const highlight = HighlightStyle.define([
  { tag: tags.propertyName, color: "var(--json-key)" },
  { tag: tags.string, color: "var(--json-string)" },
  { tag: tags.number, color: "var(--json-number)" },
  { tag: [tags.bool, tags.null], color: "var(--json-keyword)" },
]);

const theme = EditorView.theme({
  "&": { height: "100%", fontSize: "12px", backgroundColor: "var(--background)", color: "var(--foreground)" },
  "&.cm-focused": { outline: "2px solid var(--ring)", outlineOffset: "-2px" },
  ".cm-scroller": { fontFamily: "var(--font-mono, ui-monospace, monospace)" },
  ".cm-gutters": { backgroundColor: "var(--muted)", color: "var(--muted-foreground)", border: "none" },
  ".cm-activeLine, .cm-activeLineGutter": { backgroundColor: "color-mix(in oklab, var(--accent) 60%, transparent)" },
  ".cm-cursor": { borderLeftColor: "var(--foreground)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground": {
    backgroundColor: "color-mix(in oklab, var(--ring) 35%, transparent)",
  },
});

export interface JsonEditorProps {
  /** The store's text; shown unless it is what the editor's own edit produced (`echo`). */
  value: string;
  echo: { readonly current: string | null };
  /** The text to show when the editor opens (a kept invalid draft), else `value`. */
  initial: string;
  readOnly: boolean;
  label: string;
  diagnostics: Diagnostic[];
  /** Where to put the cursor (a problem was clicked); `serial` repeats the request. */
  cursor: { offset: number; serial: number } | null;
  onEdit(text: string): void;
  onUndo(): void;
  onRedo(): void;
  onBlur(): void;
}

export default function JsonEditor(props: JsonEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latest = useRef(props);
  latest.current = props;
  const readOnly = useRef(new Compartment());
  const attributes = useRef(new Compartment());
  /** The store text last seen: the editor follows changes of it (not its first value: a kept draft may be shown). */
  const lastValue = useRef(props.value);

  // The view is made once; later props arrive through the effects below and `latest`.
  useEffect(() => {
    const parent = host.current;
    if (!parent) return;
    const state = EditorState.create({
      doc: latest.current.initial,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        foldGutter(),
        lintGutter(),
        drawSelection(),
        highlightActiveLine(),
        bracketMatching(),
        json(),
        syntaxHighlighting(highlight),
        theme,
        readOnly.current.of(EditorState.readOnly.of(latest.current.readOnly)),
        attributes.current.of(contentAttributes(latest.current.label)),
        keymap.of([
          { key: "Mod-z", run: () => handled(latest.current.onUndo), preventDefault: true },
          { key: "Mod-y", run: () => handled(latest.current.onRedo), preventDefault: true },
          { key: "Mod-Shift-z", run: () => handled(latest.current.onRedo), preventDefault: true },
          ...defaultKeymap,
          ...foldKeymap,
        ]),
        EditorView.updateListener.of((update) => {
          if (update.docChanged && !update.transactions.some((tr) => tr.annotation(fromOutside))) {
            latest.current.onEdit(update.state.doc.toString());
          }
        }),
        EditorView.domEventHandlers({ blur: () => latest.current.onBlur() }),
      ],
    });
    view.current = new EditorView({ state, parent });
    return () => {
      view.current?.destroy();
      view.current = null;
    };
  }, []);

  // The store moved (canvas, undo, another panel): the editor shows it, unless it is our own edit.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `echo` is a ref, read when the value moves
  useEffect(() => {
    const editor = view.current;
    if (!editor || props.value === lastValue.current) return;
    lastValue.current = props.value;
    if (props.value === props.echo.current) return;
    const current = editor.state.doc.toString();
    if (current === props.value) return;
    editor.dispatch({
      changes: { from: 0, to: current.length, insert: props.value },
      selection: { anchor: Math.min(editor.state.selection.main.head, props.value.length) },
      annotations: fromOutside.of(true),
    });
  }, [props.value]);

  useEffect(() => {
    view.current?.dispatch({ effects: attributes.current.reconfigure(contentAttributes(props.label)) });
  }, [props.label]);

  useEffect(() => {
    view.current?.dispatch({ effects: readOnly.current.reconfigure(EditorState.readOnly.of(props.readOnly)) });
  }, [props.readOnly]);

  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const length = editor.state.doc.length;
    const clamped = props.diagnostics.map((d) => ({
      ...d,
      from: Math.min(d.from, length),
      to: Math.min(Math.max(d.to, d.from), length),
    }));
    editor.dispatch(setDiagnostics(editor.state, clamped));
  }, [props.diagnostics]);

  useEffect(() => {
    const editor = view.current;
    if (!editor || !props.cursor) return;
    const anchor = Math.min(props.cursor.offset, editor.state.doc.length);
    editor.dispatch({ selection: { anchor }, scrollIntoView: true });
    editor.focus();
  }, [props.cursor]);

  return <div ref={host} className="h-full min-h-0" data-testid="workflow-json" />;
}
