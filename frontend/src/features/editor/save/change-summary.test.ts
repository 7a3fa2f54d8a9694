import { describe, expect, it } from "vitest";
import { sampleDocument } from "../document/document.fixtures.js";
import { changeCount, sameValue, summarizeChanges } from "./change-summary.js";

describe("change summary", () => {
  it("lists nodes, edges and state fields added, removed and changed, and the workflow's name", () => {
    const before = sampleDocument();
    const after = structuredClone(before);
    after.name = "Tên mới 🚀";
    after.nodes = after.nodes.filter((node) => node.id !== "check");
    after.nodes.push({ id: "extra", type: "join", position: { x: 1, y: 1 }, data: {} });
    (after.nodes.find((node) => node.id === "draft") as { data: Record<string, unknown> }).data.prompt = "Khác";
    after.edges = after.edges.slice(1);
    after.state.push({ name: "note", type: "string" });
    (after.state[0] as { description?: string }).description = "asked";
    const summary = summarizeChanges(before, after);
    expect(summary).toEqual({
      nodes: { added: ["extra"], removed: ["check"], changed: ["draft"] },
      edges: { added: [], removed: [before.edges[0]?.id], changed: [] },
      state: { added: ["note"], removed: [], changed: ["question"] },
      workflow: ["name"],
    });
    expect(changeCount(summary)).toBe(7);
  });

  it("finds nothing between equal documents whose keys are in another order, and one change per element", () => {
    const before = sampleDocument();
    const reordered = JSON.parse(JSON.stringify(before), (_key, value) =>
      value && typeof value === "object" && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).reverse())
        : value,
    );
    expect(changeCount(summarizeChanges(before, reordered))).toBe(0);
    const moved = structuredClone(before);
    const draft = moved.nodes.find((node) => node.id === "draft") as (typeof moved.nodes)[number];
    draft.position = { x: 9, y: 9 };
    draft.data.label = "Moved";
    expect(summarizeChanges(before, moved).nodes.changed).toEqual(["draft"]);
  });

  it("compares values deeply and tells arrays from objects", () => {
    expect(sameValue({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(sameValue({ a: [1, { b: 2 }] }, { a: [1, { b: 3 }] })).toBe(false);
    expect(sameValue([], {})).toBe(false);
    expect(sameValue("x", "x")).toBe(true);
    expect(sameValue(undefined, {})).toBe(false);
  });
});
