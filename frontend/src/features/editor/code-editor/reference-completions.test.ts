import { describe, expect, it } from "vitest";
import { type ReferenceScope, referenceCompletions } from "./reference-completions";

const scope: ReferenceScope = {
  fields: [
    { name: "question", type: "string" },
    { name: "answers", type: "list", reducer: "append", description: "Every answer" },
  ],
  contextKeys: ["tenant", "tenant"],
};

describe("reference completions", () => {
  it("offers nothing outside an open {{", () => {
    expect(referenceCompletions("Hello ", scope)).toBeNull();
    expect(referenceCompletions("Hello {{state.question}} and", scope)).toBeNull();
  });

  it("offers the roots and every state field with its type right after {{", () => {
    const found = referenceCompletions("Hi {{", scope);
    expect(found?.from).toBe(5);
    expect(found?.options.map((o) => [o.label, o.detail])).toEqual([
      ["state.", "state"],
      ["context.", "context"],
      ["state.question", "string"],
      ["state.answers", "list · append"],
    ]);
  });

  it("offers item and index only in a For each body", () => {
    const labels = referenceCompletions("{{ ", { ...scope, inForEachBody: true })?.options.map((o) => o.label);
    expect(labels).toContain("item");
    expect(labels).toContain("index");
    expect(referenceCompletions("{{ ", scope)?.options.map((o) => o.label)).not.toContain("item");
  });

  it("completes field names after state. from the dot, with types and descriptions", () => {
    const found = referenceCompletions("Q: {{ state.qu", scope);
    expect(found?.from).toBe("Q: {{ state.".length);
    expect(found?.options).toEqual([
      { label: "question", detail: "string", kind: "field" },
      { label: "answers", detail: "list · append", kind: "field", description: "Every answer" },
    ]);
  });

  it("completes the context keys the document uses, once each", () => {
    expect(referenceCompletions("{{context.", scope)?.options.map((o) => o.label)).toEqual(["tenant"]);
  });

  it("does not guess below a field or after an unknown root", () => {
    expect(referenceCompletions("{{state.question.x", scope)).toBeNull();
    expect(referenceCompletions("{{stat.x", scope)).toBeNull();
    expect(referenceCompletions("{{state a", scope)).toBeNull();
  });
});
