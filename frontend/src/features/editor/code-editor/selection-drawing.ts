// CodeMirror's drawn selection and cursor (`drawSelection`), without one of its style rules.
//
// drawSelection hides the browser's own selection with a theme that includes
// `.cm-content :focus ::selection`. Once any editor with it has been shown, that rule stays in the
// page, and Chromium can only honour it by restyling every element under an element whose focus
// changes: when the focus left the editor's main area (a click on the canvas's background focuses
// it) for a node, all ~10,000 elements of a 500-node workflow were restyled, 110–150 ms of a
// selection (decision 0015). The theme below hides the native selection the same way, keeping the
// `:focus` only on the element itself (`:focus::selection`): focus changes restyle that element alone.
import { EditorState, type Extension, Prec } from "@codemirror/state";
import { drawSelection, EditorView } from "@codemirror/view";

/** The CSS text of the style modules an extension adds to an editor. */
export function styleRulesOf(extension: Extension): string[] {
  return EditorState.create({ extensions: extension })
    .facet(EditorView.styleModule)
    .flatMap((module) => module.getRules().split("\n"));
}

/** A rule whose selector has a focus, hover or active state followed by a descendant, child or
 * sibling part that any element can match (`*`, a pseudo-element or a bare pseudo-class): a change
 * of that state restyles every element below (or after) the one that changed. */
export function restylesSubtreeOnStateChange(rule: string): boolean {
  const selector = rule.slice(0, rule.indexOf("{"));
  return /:(focus|focus-visible|focus-within|hover|active)\b[^,]*?(\s+|\s*[>~+]\s*)(\*|::?[a-z-]+)\s*(,|$)/i.test(
    selector.trim(),
  );
}

const nav = typeof navigator === "undefined" ? undefined : navigator;
// As CodeMirror decides: iOS draws its own main selection range, other browsers get it drawn.
const ios =
  nav !== undefined &&
  /Apple Computer/.test(nav.vendor) &&
  (/Mobile\/\w+/.test(nav.userAgent) || nav.maxTouchPoints > 2);
// CodeMirror's workaround for Firefox 153, which ignores a transparent selection background.
const selectionBackground = nav !== undefined && /Firefox\/153\b/.test(nav.userAgent) ? "#ffffff01" : "transparent";

const hideNativeSelection = Prec.highest(
  EditorView.theme({
    ".cm-line": {
      ...(ios ? {} : { "& ::selection, &::selection": { backgroundColor: `${selectionBackground} !important` } }),
      caretColor: "transparent !important",
    },
    ".cm-content": {
      caretColor: "transparent !important",
      // A focusable element inside the text (none of ours today) keeps its own caret and selection.
      "& :focus": {
        caretColor: "initial !important",
        ...(ios ? {} : { "&::selection": { backgroundColor: "Highlight !important" } }),
      },
    },
  }),
);

let drawing: Extension | undefined;

/** drawSelection's parts, except the theme whose rules restyle whole subtrees on focus changes
 * (worked out once; every editor shares the same extension objects). */
export function selectionDrawing(): Extension {
  if (!drawing) {
    const parts = drawSelection() as readonly Extension[];
    const kept = parts.filter((part) => !styleRulesOf(part).some(restylesSubtreeOnStateChange));
    drawing = [...kept, hideNativeSelection];
  }
  return drawing;
}
