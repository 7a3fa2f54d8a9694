import { describe, expect, it } from "vitest";
import {
  findReferences,
  findReferencesDeep,
  renderText,
  renderValue,
  scanTemplate,
  TemplateError,
  wholeReferenceBody,
} from "./template.js";

const scope = {
  state: { user: { name: "Ana", tags: ["a", "b"] }, count: 3, empty: null, text: "{{state.count}}" },
  item: { title: "first" },
  index: 0,
  context: { tenant: "acme" },
};

describe("templates", () => {
  it("looks up state, item, index and context paths", () => {
    expect(renderText("Hi {{state.user.name}} ({{ context.tenant }})", scope)).toBe("Hi Ana (acme)");
    expect(renderText("{{item.title}} #{{index}}", scope)).toBe("first #0");
    expect(renderText("{{state.user.tags.1}}", scope)).toBe("b");
    expect(renderText("{{state.user.tags}}", scope)).toBe('["a","b"]');
  });

  it("renders a missing path as empty text, or null for a whole-value reference", () => {
    expect(renderText("[{{state.user.age}}][{{state.nothing.deeper}}][{{state.empty}}]", scope)).toBe("[][][]");
    expect(renderValue("{{state.user.age}}", scope)).toBeNull();
  });

  it("keeps the type of a whole-value reference and renders nested values", () => {
    expect(renderValue("{{state.user.tags}}", scope)).toEqual(["a", "b"]);
    expect(renderValue("{{state.count}}", scope)).toBe(3);
    expect(renderValue({ q: "n={{state.count}}", list: ["{{item.title}}"] }, scope)).toEqual({
      q: "n=3",
      list: ["first"],
    });
  });

  it("never renders its own output again", () => {
    expect(renderText("{{state.text}}", scope)).toBe("{{state.count}}");
  });

  it("refuses anything that is not a plain reference", () => {
    for (const bad of [
      "{{constructor.constructor('return process')()}}",
      "{{ this }}",
      "{{state.a + 1}}",
      "{{state.__proto__ x}}",
      "{{process.env}}",
      "{{index.x}}",
    ]) {
      expect(() => renderText(bad, scope), bad).toThrow(TemplateError);
    }
  });

  it("does not read inherited properties", () => {
    expect(renderText("{{state.user.constructor}}|{{state.__proto__}}|{{state.toString}}", scope)).toBe("||");
    expect(renderValue("{{state.user.constructor}}", scope)).toBeNull();
  });

  it("does not let rendered object keys pollute prototypes", () => {
    const rendered = renderValue(JSON.parse('{"__proto__": {"polluted": "{{state.count}}"}}'), scope) as object;
    expect(Object.getPrototypeOf(rendered)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("lists the references of a text", () => {
    expect(findReferences("{{state.a}} and {{item.b.c}}").map((r) => [r.root, r.path])).toEqual([
      ["state", ["a"]],
      ["item", ["b", "c"]],
    ]);
  });

  describe("scanning", () => {
    // The regexes the scanner replaces; they backtrack cubically on "{{" and many spaces.
    const REFERENCE = /\{\{\s*([^{}]*?)\s*\}\}/g;
    const WHOLE = /^\{\{\s*([^{}]*?)\s*\}\}$/;

    /** Every string of up to `length` characters over `alphabet`. */
    function* strings(alphabet: string[], length: number): Generator<string> {
      yield "";
      let level = [""];
      for (let n = 1; n <= length; n++) {
        const next: string[] = [];
        for (const prefix of level) for (const c of alphabet) next.push(prefix + c);
        yield* next;
        level = next;
      }
    }

    it("finds exactly what the old regex found, on every short text over braces, spaces and names", () => {
      const differences: string[] = [];
      let compared = 0;
      for (const text of strings(["{", "}", " ", "a", ".", "\n"], 7)) {
        const expected = [...text.matchAll(REFERENCE)].map((m) => ({
          start: m.index,
          end: m.index + m[0].length,
          body: m[1],
        }));
        if (JSON.stringify(scanTemplate(text)) !== JSON.stringify(expected)) differences.push(text);
        if (wholeReferenceBody(text) !== WHOLE.exec(text)?.[1]) differences.push(text);
        compared++;
      }
      expect(differences).toEqual([]);
      expect(compared).toBe((6 ** 8 - 1) / 5);
    });

    it("answers adversarial texts of 100,000 characters with the right references", () => {
      const long = 100_000;
      expect(scanTemplate(`{{${" ".repeat(long - 2)}`)).toEqual([]);
      expect(scanTemplate(`{{ state.a${" ".repeat(long - 10)}`)).toEqual([]);
      expect(scanTemplate("{".repeat(long))).toEqual([]);
      expect(scanTemplate("}".repeat(long))).toEqual([]);
      expect(scanTemplate("{{ }".repeat(long / 4))).toEqual([]);
      expect(scanTemplate(`{{${" ".repeat(long)}}}`)).toEqual([{ start: 0, end: long + 4, body: "" }]);
      expect(findReferences(`${"{{".repeat(long / 2)}{{ state.x }}`).map((r) => r.path)).toEqual([["x"]]);
      expect(findReferences("{{state.a}}".repeat(long / 11))).toHaveLength(Math.floor(long / 11));
      expect(wholeReferenceBody(`{{${" ".repeat(long)}`)).toBeUndefined();
      expect(wholeReferenceBody(`{{ ${"a".repeat(long)} }}`)).toBe("a".repeat(long));
      expect(renderValue(`{{${" ".repeat(long)}state.count${" ".repeat(long)}}}`, scope)).toBe(3);
      expect(renderText(`${"{".repeat(long)}{{state.count}}${"}".repeat(long)}`, scope)).toBe(
        `${"{".repeat(long)}3${"}".repeat(long)}`,
      );
    });

    it("finds references in nested values in document order", () => {
      const value = { b: ["{{state.one}}", { c: "{{state.two}} {{item.x}}" }], d: "{{context.three}}" };
      expect(findReferencesDeep(value).map((r) => r.raw)).toEqual([
        "state.one",
        "state.two",
        "item.x",
        "context.three",
      ]);
    });
  });
});
