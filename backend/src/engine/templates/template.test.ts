import { describe, expect, it } from "vitest";
import { findReferences, renderText, renderValue, TemplateError } from "./template.js";

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
});
