import { drawSelection } from "@codemirror/view";
import { describe, expect, it } from "vitest";
import { restylesSubtreeOnStateChange, selectionDrawing, styleRulesOf } from "./selection-drawing";

describe("the editor's drawn selection", () => {
  it("adds no style rule that restyles a whole subtree when an element gains or loses focus", () => {
    // CodeMirror's own drawSelection has one (`.cm-content :focus ::selection`): the check finds it.
    expect(styleRulesOf(drawSelection()).filter(restylesSubtreeOnStateChange)).toHaveLength(1);
    expect(styleRulesOf(selectionDrawing()).filter(restylesSubtreeOnStateChange)).toEqual([]);
  });

  it("keeps every other part of drawSelection and still hides the native selection and caret", () => {
    const parts = drawSelection() as readonly unknown[];
    const ours = selectionDrawing() as readonly unknown[];
    // One part (the theme) is replaced by ours; the configuration and the two layers are kept.
    expect(ours).toHaveLength(parts.length);
    const rules = styleRulesOf(selectionDrawing()).join("\n");
    expect(rules).toMatch(/\.cm-line ::selection[^{]*\{background-color: transparent !important/);
    expect(rules).toMatch(/\.cm-content \{caret-color: transparent !important/);
    expect(rules).toMatch(/\.cm-content :focus::selection \{background-color: Highlight !important/);
  });

  it("tells rules that restyle subtrees from rules that restyle one element", () => {
    expect(restylesSubtreeOnStateChange(".a :focus ::selection {color: red}")).toBe(true);
    expect(restylesSubtreeOnStateChange(".a:hover * {color: red}")).toBe(true);
    expect(restylesSubtreeOnStateChange(".a:focus-within > :first-child {color: red}")).toBe(true);
    expect(restylesSubtreeOnStateChange(".a :focus::selection {color: red}")).toBe(false);
    expect(restylesSubtreeOnStateChange(".a:focus {color: red}")).toBe(false);
    expect(restylesSubtreeOnStateChange("ul:focus [aria-selected] {color: red}")).toBe(false);
    expect(restylesSubtreeOnStateChange(".a:focus .b, .c ::selection {color: red}")).toBe(false);
  });
});
