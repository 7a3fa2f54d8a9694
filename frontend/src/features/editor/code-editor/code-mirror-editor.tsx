// The CodeMirror 6 view behind CodeEditor (loaded lazily). One EditorView per mounted editor; the
// language, read-only flag and reference scope are swapped through compartments, and the text is
// controlled: a new `value` from outside (undo, another panel) replaces the editor's text.
import { autocompletion, type Completion, type CompletionContext, closeBrackets } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { type Diagnostic, linter } from "@codemirror/lint";
import { Annotation, Compartment, EditorState, type Extension } from "@codemirror/state";
import {
  Decoration,
  drawSelection,
  EditorView,
  keymap,
  MatchDecorator,
  placeholder as placeholderText,
  ViewPlugin,
  type ViewUpdate,
} from "@codemirror/view";
import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import type { CodeEditorProps, CodeLanguage } from "./code-editor-props";
import { type ReferenceScope, referenceCompletions } from "./reference-completions";
import { referenceDiagnostics } from "./reference-lint";

/** {{…}} references stand out in every language. */
const referenceMarks = new MatchDecorator({
  regexp: /\{\{[^{}]*\}\}/g,
  decoration: Decoration.mark({ class: "cm-reference" }),
});
// Kept up to date on each change.
const referenceHighlightUpdates = ViewPlugin.fromClass(
  class {
    decorations;
    constructor(view: EditorView) {
      this.decorations = referenceMarks.createDeco(view);
    }
    update(update: ViewUpdate) {
      this.decorations = referenceMarks.updateDeco(update, this.decorations);
    }
  },
  { decorations: (plugin) => plugin.decorations },
);

/** Marks a change that came from `value`, so it is not reported back through onChange. */
const external = Annotation.define<boolean>();

/**
 * The language support, each grammar its own chunk (a prompt editor loads none of them). Tab
 * indents only in code (JavaScript, Python), where indentation matters; there, Escape then Tab
 * leaves the editor (CodeMirror's own rule). In templates and JSON, Tab moves on to the next field.
 */
async function languageExtension(language: CodeLanguage): Promise<Extension> {
  switch (language) {
    case "javascript":
      return [(await import("@codemirror/lang-javascript")).javascript(), keymap.of([indentWithTab])];
    case "python":
      return [(await import("@codemirror/lang-python")).python(), keymap.of([indentWithTab])];
    case "json": {
      const { json, jsonParseLinter } = await import("@codemirror/lang-json");
      const parseProblems = jsonParseLinter();
      // An empty JSON setting means "not set": not a syntax error.
      return [json(), linter((view) => (view.state.doc.length === 0 ? [] : parseProblems(view)), { delay: 300 })];
    }
    default:
      return [];
  }
}

/** Code in a monospace font; templates are prose (prompts, messages), in the page's font, which
 * also draws Vietnamese diacritics better than the fallback monospace fonts. */
function fontTheme(language: CodeLanguage): Extension {
  const fontFamily =
    language === "template" ? "var(--font-sans)" : "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace";
  return EditorView.theme({ ".cm-scroller": { fontFamily, lineHeight: "1.5" } });
}

const theme = EditorView.theme({
  "&": {
    fontSize: "0.75rem",
    border: "1px solid var(--input)",
    borderRadius: "calc(var(--radius) - 2px)",
    backgroundColor: "transparent",
    color: "var(--foreground)",
  },
  "&.cm-focused": {
    outline: "none",
    borderColor: "var(--ring)",
    boxShadow: "0 0 0 3px color-mix(in oklch, var(--ring) 50%, transparent)",
  },
  // The same padding as the form's text inputs, so a one-line template lines up with them.
  ".cm-content": { caretColor: "var(--foreground)", padding: "7px 0" },
  ".cm-line": { padding: "0 11px" },
  ".cm-gutters": { backgroundColor: "transparent", border: "none" },
  ".cm-reference": { color: "var(--ring)", fontWeight: "600" },
  ".cm-tooltip": {
    backgroundColor: "var(--popover)",
    color: "var(--popover-foreground)",
    border: "1px solid var(--border)",
  },
  ".cm-tooltip-autocomplete ul li[aria-selected]": {
    backgroundColor: "var(--accent)",
    color: "var(--accent-foreground)",
  },
  ".cm-completionDetail": { color: "var(--muted-foreground)", fontStyle: "normal", marginLeft: "0.75em" },
  ".cm-diagnostic-error": { borderLeftColor: "var(--destructive)" },
  ".cm-lintRange-error": {
    backgroundImage: "none",
    textDecoration: "underline wavy var(--destructive)",
    textUnderlineOffset: "3px",
  },
});

/** Syntax colours that keep their contrast on light and dark backgrounds. */
const darkAwareHighlight = EditorView.theme({
  ".dark & .cm-content span": { filter: "brightness(1.6) saturate(0.9)" },
});

function completionSource(scope: () => ReferenceScope | undefined, t: (key: string) => string) {
  return (context: CompletionContext) => {
    const current = scope();
    if (!current) return null;
    const line = context.state.doc.lineAt(context.pos);
    const before = line.text.slice(0, context.pos - line.from);
    const found = referenceCompletions(before, current);
    if (!found) return null;
    return {
      from: line.from + found.from,
      options: found.options.map(
        (option): Completion => ({
          label: option.label,
          detail: option.kind === "root" ? t(`editor.codeEditor.roots.${option.detail}`) : option.detail,
          type: option.kind === "field" ? "variable" : option.kind === "root" ? "namespace" : "property",
          ...(option.description ? { info: option.description } : {}),
          // A field completes the reference: close the braces when they are not there yet.
          apply: (view, _completion, from, to) => {
            // A complete reference puts the cursor after its closing braces (added when missing).
            const complete = option.kind !== "root";
            const closed = view.state.sliceDoc(to, to + 2) === "}}";
            const insert = option.label + (complete && !closed ? "}}" : "");
            view.dispatch({
              changes: { from, to, insert },
              selection: { anchor: from + option.label.length + (complete ? 2 : 0) },
            });
          },
        }),
      ),
      validFor: /^[A-Za-z0-9_.]*$/,
    };
  };
}

export default function CodeMirrorEditor(props: CodeEditorProps) {
  const { t } = useTranslation();
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latest = useRef(props);
  latest.current = props;
  const tRef = useRef(t);
  tRef.current = t;
  const compartments = useRef({
    language: new Compartment(),
    font: new Compartment(),
    readOnly: new Compartment(),
    aria: new Compartment(),
  });

  // biome-ignore lint/correctness/useExhaustiveDependencies: the view is made once; props reach it through refs and compartments
  useEffect(() => {
    if (!host.current) return;
    const c = compartments.current;
    const lint = linter(
      (v): Diagnostic[] => {
        const scope = latest.current.references;
        return scope ? referenceDiagnostics(v.state.doc.toString(), scope, tRef.current) : [];
      },
      { delay: 120 },
    );
    const state = EditorState.create({
      doc: props.value,
      extensions: [
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        closeBrackets(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        EditorView.lineWrapping,
        keymap.of([...defaultKeymap, ...historyKeymap]),
        autocompletion({
          override: [
            completionSource(
              () => latest.current.references,
              (key) => tRef.current(key),
            ),
          ],
          icons: false,
        }),
        lint,
        referenceHighlightUpdates,
        theme,
        darkAwareHighlight,
        placeholderText(""),
        c.language.of([]),
        c.font.of(fontTheme(props.language)),
        c.readOnly.of([EditorState.readOnly.of(props.readOnly ?? false), EditorView.editable.of(!props.readOnly)]),
        c.aria.of(ariaAttributes(props)),
        EditorView.theme({
          ".cm-content": { minHeight: `${(props.minLines ?? 3) * 1.4}em` },
        }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged && !update.transactions.some((tr) => tr.annotation(external)))
            latest.current.onChange?.(update.state.doc.toString());
          if (update.focusChanged && !update.view.hasFocus) latest.current.onBlur?.();
        }),
      ],
    });
    view.current = new EditorView({ state, parent: host.current });
    return () => {
      view.current?.destroy();
      view.current = null;
    };
  }, []);

  // The text from outside (undo, another panel): replace only when it differs from what is shown.
  useEffect(() => {
    const v = view.current;
    if (!v) return;
    const shown = v.state.doc.toString();
    if (shown !== props.value)
      v.dispatch({ changes: { from: 0, to: shown.length, insert: props.value }, annotations: external.of(true) });
  }, [props.value]);

  useEffect(() => {
    let current = true;
    view.current?.dispatch({ effects: compartments.current.font.reconfigure(fontTheme(props.language)) });
    void languageExtension(props.language).then((extension) => {
      if (current) view.current?.dispatch({ effects: compartments.current.language.reconfigure(extension) });
    });
    return () => {
      current = false;
    };
  }, [props.language]);

  useEffect(() => {
    const readOnly = props.readOnly ?? false;
    view.current?.dispatch({
      effects: compartments.current.readOnly.reconfigure([
        EditorState.readOnly.of(readOnly),
        EditorView.editable.of(!readOnly),
      ]),
    });
  }, [props.readOnly]);

  const label = props["aria-label"];
  const describedBy = props["aria-describedby"];
  const invalid = props["aria-invalid"];
  // biome-ignore lint/correctness/useExhaustiveDependencies: the attributes are what changes
  useEffect(() => {
    view.current?.dispatch({ effects: compartments.current.aria.reconfigure(ariaAttributes(latest.current)) });
  }, [label, describedBy, invalid]);

  return <div ref={host} data-testid={props["data-testid"]} data-language={props.language} />;
}

function ariaAttributes(props: CodeEditorProps): Extension {
  const attributes: Record<string, string> = { "aria-label": props["aria-label"], "aria-multiline": "true" };
  if (props["aria-describedby"]) attributes["aria-describedby"] = props["aria-describedby"];
  if (props["aria-invalid"]) attributes["aria-invalid"] = "true";
  return EditorView.contentAttributes.of(attributes);
}
