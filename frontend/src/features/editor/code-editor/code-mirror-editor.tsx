// The CodeMirror 6 view behind CodeEditor (loaded lazily): the one CodeMirror setup of the studio,
// for settings fields and for the JSON view's whole document. One EditorView per mounted editor;
// the language, read-only flag and attributes are swapped through compartments, and the text is
// controlled: a new `value` from outside (undo, another panel) replaces the editor's text.
import { autocompletion, type Completion, type CompletionContext, closeBrackets } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import {
  bracketMatching,
  defaultHighlightStyle,
  foldGutter,
  foldKeymap,
  HighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from "@codemirror/language";
import { type Diagnostic, linter, lintGutter, setDiagnostics } from "@codemirror/lint";
import { Annotation, Compartment, EditorState, type Extension } from "@codemirror/state";
import {
  Decoration,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
  MatchDecorator,
  placeholder as placeholderText,
  ViewPlugin,
  type ViewUpdate,
} from "@codemirror/view";
import { tags } from "@lezer/highlight";
import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import type { CodeEditorProps, CodeLanguage } from "./code-editor-props";
import { type ReferenceScope, referenceCompletions } from "./reference-completions";
import { referenceDiagnostics } from "./reference-lint";
import { selectionDrawing } from "./selection-drawing";

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
async function languageExtension(language: CodeLanguage, checks: boolean): Promise<Extension> {
  const key = languageKey(language, checks);
  const known = loadedLanguages.get(key);
  if (known) return known;
  const extension = await loadLanguage(language, checks);
  loadedLanguages.set(key, extension);
  return extension;
}

/** Loads the grammar most settings fields use (a Code node's JavaScript) ahead of the first one. */
export function preloadLanguages(): Promise<unknown> {
  return languageExtension("javascript", true);
}

const languageKey = (language: CodeLanguage, checks: boolean) => `${language}:${checks}`;

/** Each language's extension once loaded: an editor made later starts with it (no second setup). */
const loadedLanguages = new Map<string, Extension>();

async function loadLanguage(language: CodeLanguage, checks: boolean): Promise<Extension> {
  switch (language) {
    case "javascript":
      return [(await import("@codemirror/lang-javascript")).javascript(), keymap.of([indentWithTab])];
    case "python":
      return [(await import("@codemirror/lang-python")).python(), keymap.of([indentWithTab])];
    case "json": {
      const { json, jsonParseLinter } = await import("@codemirror/lang-json");
      if (!checks) return json();
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
const SANS_FONT = EditorView.theme({ ".cm-scroller": { fontFamily: "var(--font-sans)", lineHeight: "1.5" } });
const MONOSPACE_FONT = EditorView.theme({
  ".cm-scroller": { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace", lineHeight: "1.5" },
});
function fontTheme(language: CodeLanguage): Extension {
  return language === "template" ? SANS_FONT : MONOSPACE_FONT;
}

/** Themes made once and reused: each new theme adds rules to the page's style sheet, and Chromium
 * then re-reads the sheet and looks for elements they match on the next style update. */
const minHeightThemes = new Map<number, Extension>();
function minHeightTheme(lines: number): Extension {
  let theme = minHeightThemes.get(lines);
  if (!theme) {
    theme = EditorView.theme({ ".cm-content": { minHeight: `${lines * 1.4}em` } });
    minHeightThemes.set(lines, theme);
  }
  return theme;
}

/** A settings field: framed like the form's text inputs. */
const fieldTheme = EditorView.theme({
  "&": {
    border: "1px solid var(--input)",
    borderRadius: "calc(var(--radius) - 2px)",
    backgroundColor: "transparent",
  },
  "&.cm-focused": {
    outline: "none",
    borderColor: "var(--ring)",
    boxShadow: "0 0 0 3px color-mix(in oklch, var(--ring) 50%, transparent)",
  },
  // The same padding as the form's text inputs, so a one-line template lines up with them.
  ".cm-content": { padding: "7px 0" },
  ".cm-line": { padding: "0 11px" },
  ".cm-gutters": { backgroundColor: "transparent", border: "none" },
});

const theme = EditorView.theme({
  "&": { fontSize: "0.75rem", color: "var(--foreground)" },
  ".cm-content": { caretColor: "var(--foreground)" },
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

/** The document variant: fills its box, scrolls inside, with gutters; JSON colours from CSS
 * variables the host sets (light and dark values, both readable). */
const documentTheme = EditorView.theme({
  "&": { height: "100%", backgroundColor: "var(--background)" },
  "&.cm-focused": { outline: "2px solid var(--ring)", outlineOffset: "-2px" },
  ".cm-gutters": { backgroundColor: "var(--muted)", color: "var(--muted-foreground)", border: "none" },
  ".cm-activeLine, .cm-activeLineGutter": { backgroundColor: "color-mix(in oklab, var(--accent) 60%, transparent)" },
  ".cm-cursor": { borderLeftColor: "var(--foreground)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground": {
    backgroundColor: "color-mix(in oklab, var(--ring) 35%, transparent)",
  },
});
const documentHighlight = HighlightStyle.define([
  { tag: tags.propertyName, color: "var(--json-key)" },
  { tag: tags.string, color: "var(--json-string)" },
  { tag: tags.number, color: "var(--json-number)" },
  { tag: [tags.bool, tags.null], color: "var(--json-keyword)" },
]);

/** A key command that did its work (CodeMirror stops looking for another). */
function handled(action: (() => void) | undefined): boolean {
  if (!action) return false;
  action();
  return true;
}

/** What differs between a settings field and a whole document. */
function variantExtensions(props: CodeEditorProps, latest: { current: CodeEditorProps }): Extension {
  // Undo goes to the caller's history when it has one (the JSON view shares the canvas's).
  const undoKeys = props.onUndo
    ? keymap.of([
        { key: "Mod-z", run: () => handled(latest.current.onUndo), preventDefault: true },
        { key: "Mod-y", run: () => handled(latest.current.onRedo), preventDefault: true },
        { key: "Mod-Shift-z", run: () => handled(latest.current.onRedo), preventDefault: true },
      ])
    : [history(), keymap.of(historyKeymap)];
  if (props.variant === "document")
    return [
      undoKeys,
      lineNumbers(),
      highlightActiveLineGutter(),
      foldGutter(),
      lintGutter(),
      highlightActiveLine(),
      keymap.of(foldKeymap),
      syntaxHighlighting(documentHighlight),
      documentTheme,
    ];
  return [
    undoKeys,
    indentOnInput(),
    closeBrackets(),
    syntaxHighlighting(fieldHighlight),
    syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
    EditorView.lineWrapping,
    fieldTheme,
    minHeightTheme(props.minLines ?? 3),
  ];
}

/**
 * Syntax colours of a settings field from CSS variables with a light and a dark value each
 * (styles.css), so that every token keeps a 4.5:1 contrast in both themes, as axe measures it
 * (a CSS filter on the tokens would look right but measure wrong).
 */
const fieldHighlight = HighlightStyle.define([
  {
    tag: [tags.keyword, tags.controlKeyword, tags.definitionKeyword, tags.moduleKeyword, tags.operatorKeyword],
    color: "var(--code-keyword)",
  },
  { tag: [tags.string, tags.special(tags.string), tags.regexp, tags.escape], color: "var(--code-string)" },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: "var(--code-atom)" },
  { tag: [tags.comment, tags.lineComment, tags.blockComment, tags.docComment], color: "var(--code-comment)" },
  {
    tag: [tags.definition(tags.variableName), tags.function(tags.variableName), tags.definition(tags.propertyName)],
    color: "var(--code-definition)",
  },
  { tag: [tags.typeName, tags.className, tags.namespace], color: "var(--code-type)" },
  { tag: [tags.meta, tags.annotation, tags.special(tags.variableName), tags.macroName], color: "var(--code-meta)" },
  { tag: tags.invalid, color: "var(--destructive)" },
]);

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
      // A dot asks again: after `{{state.` the list is the fields, however fast it was typed.
      validFor: /^[A-Za-z0-9_]*$/,
    };
  };
}

export default function CodeMirrorEditor(props: CodeEditorProps & { autoFocus?: boolean }) {
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

  /** What the view was made with or last reconfigured to (null before it is made). */
  const made = useRef<{ language: string | null; font: CodeLanguage; readOnly: boolean; aria: string } | null>(null);

  /** The caller's problems are shown; the editor runs no checks of its own then. */
  const ownChecks = props.diagnostics === undefined;

  // biome-ignore lint/correctness/useExhaustiveDependencies: the view is made once; props reach it through refs and compartments
  useEffect(() => {
    if (!host.current) return;
    const c = compartments.current;
    const lint = ownChecks
      ? linter(
          (v): Diagnostic[] => {
            const scope = latest.current.references;
            return scope ? referenceDiagnostics(v.state.doc.toString(), scope, tRef.current) : [];
          },
          { delay: 120 },
        )
      : [];
    const state = EditorState.create({
      doc: props.value,
      extensions: [
        variantExtensions(props, latest),
        selectionDrawing(),
        bracketMatching(),
        keymap.of(defaultKeymap),
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
        placeholderText(""),
        c.language.of(loadedLanguages.get(languageKey(props.language, ownChecks)) ?? []),
        c.font.of(fontTheme(props.language)),
        c.readOnly.of(readOnlyExtension(props)),
        c.aria.of(ariaAttributes(props)),
        EditorView.updateListener.of((update) => {
          if (update.docChanged && !update.transactions.some((tr) => tr.annotation(external)))
            latest.current.onChange?.(update.state.doc.toString());
          if (update.focusChanged && !update.view.hasFocus) latest.current.onBlur?.();
        }),
      ],
    });
    view.current = new EditorView({ state, parent: host.current });
    made.current = {
      language: loadedLanguages.has(languageKey(props.language, ownChecks))
        ? languageKey(props.language, ownChecks)
        : null,
      font: props.language,
      readOnly: props.readOnly ?? false,
      aria: ariaKey(props),
    };
    if (props.autoFocus) view.current.focus();
    return () => {
      view.current?.destroy();
      view.current = null;
      made.current = null;
    };
  }, []);

  // The text from outside (undo, another panel): replace only when it differs from what is shown.
  useEffect(() => {
    const v = view.current;
    if (!v) return;
    const shown = v.state.doc.toString();
    if (shown !== props.value)
      v.dispatch({
        changes: { from: 0, to: shown.length, insert: props.value },
        // The cursor stays where it was (as far as the new text goes), not at the start.
        selection: { anchor: Math.min(v.state.selection.main.head, props.value.length) },
        annotations: external.of(true),
      });
  }, [props.value]);

  useEffect(() => {
    const v = view.current;
    if (!v || !props.diagnostics) return;
    const length = v.state.doc.length;
    const shown = props.diagnostics.map(
      (d): Diagnostic => ({
        from: Math.min(d.from, length),
        to: Math.min(Math.max(d.to, d.from), length),
        severity: "error",
        message: d.message,
      }),
    );
    v.dispatch(setDiagnostics(v.state, shown));
  }, [props.diagnostics]);

  useEffect(() => {
    const v = view.current;
    if (!v || !props.cursor) return;
    v.dispatch({ selection: { anchor: Math.min(props.cursor.offset, v.state.doc.length) }, scrollIntoView: true });
    v.focus();
  }, [props.cursor]);

  // Each setting below is reconfigured only when it differs from what the view shows: on mount the
  // view was just made with it (a reconfiguration re-reads every extension and measures again).
  useEffect(() => {
    const shown = made.current;
    if (!shown) return;
    let current = true;
    if (shown.font !== props.language) {
      shown.font = props.language;
      view.current?.dispatch({ effects: compartments.current.font.reconfigure(fontTheme(props.language)) });
    }
    const key = languageKey(props.language, ownChecks);
    if (shown.language !== key)
      void languageExtension(props.language, ownChecks).then((extension) => {
        if (!current) return;
        shown.language = key;
        view.current?.dispatch({ effects: compartments.current.language.reconfigure(extension) });
      });
    return () => {
      current = false;
    };
  }, [props.language, ownChecks]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the flag is what changes; the rest comes through `latest`
  useEffect(() => {
    const shown = made.current;
    const readOnly = latest.current.readOnly ?? false;
    if (!shown || shown.readOnly === readOnly) return;
    shown.readOnly = readOnly;
    view.current?.dispatch({ effects: compartments.current.readOnly.reconfigure(readOnlyExtension(latest.current)) });
  }, [props.readOnly]);

  const label = props["aria-label"];
  const describedBy = props["aria-describedby"];
  const invalid = props["aria-invalid"];
  // biome-ignore lint/correctness/useExhaustiveDependencies: the attributes are what changes
  useEffect(() => {
    const shown = made.current;
    const aria = ariaKey(latest.current);
    if (!shown || shown.aria === aria) return;
    shown.aria = aria;
    view.current?.dispatch({ effects: compartments.current.aria.reconfigure(ariaAttributes(latest.current)) });
  }, [label, describedBy, invalid]);

  return (
    <div
      ref={host}
      className={props.variant === "document" ? "h-full min-h-0" : undefined}
      data-testid={props["data-testid"]}
      data-language={props.language}
    />
  );
}

/** A read-only field cannot be typed in; a read-only document stays selectable (copy, keys). */
function readOnlyExtension(props: CodeEditorProps): Extension {
  const readOnly = props.readOnly ?? false;
  if (props.variant === "document") return EditorState.readOnly.of(readOnly);
  return [EditorState.readOnly.of(readOnly), EditorView.editable.of(!readOnly)];
}

function ariaKey(props: CodeEditorProps): string {
  return JSON.stringify([props["aria-label"], props["aria-describedby"], props["aria-invalid"] ?? false]);
}

function ariaAttributes(props: CodeEditorProps): Extension {
  const attributes: Record<string, string> = { "aria-label": props["aria-label"], "aria-multiline": "true" };
  // A document scrolls inside: its text is a tab stop of its own, also when read-only.
  if (props.variant === "document") attributes.tabindex = "0";
  if (props["aria-describedby"]) attributes["aria-describedby"] = props["aria-describedby"];
  if (props["aria-invalid"]) attributes["aria-invalid"] = "true";
  return EditorView.contentAttributes.of(attributes);
}
