import { describe, expect, it } from "vitest";
import { loadedStore, sampleDocument } from "./document.fixtures.js";
import { canConnect, implicitEnds, outputHandles, selectNode } from "./document-selectors.js";

describe("document selectors", () => {
  it("give each node's outgoing handles: Condition labels from its rules, For each fixed, Decision free", () => {
    const document = sampleDocument();
    const node = (id: string) => document.nodes.find((n) => n.id === id)!;
    expect(outputHandles(node("check"), document.edges)).toEqual({
      rule: "labels",
      labels: ["high", "low", "else"],
      freeLabels: false,
    });
    expect(outputHandles(node("each"), document.edges)).toEqual({
      rule: "fixed",
      labels: ["item", "done"],
      freeLabels: false,
    });
    expect(outputHandles(node("draft"), document.edges)).toEqual({ rule: "single", labels: [], freeLabels: false });
    expect(outputHandles(node("end"), document.edges).rule).toBe("none");
    const decision = { id: "pick", type: "decision" as const, data: { label_descriptions: { yes: "fits" } } };
    const edges = [{ id: "x", source: "pick", target: "end", label: "maybe" }];
    expect(outputHandles(decision, edges)).toEqual({ rule: "free", labels: ["yes", "maybe"], freeLabels: true });
  });

  it("know the implicit Start and End a document without them still has", () => {
    const document = sampleDocument();
    expect(implicitEnds(document)).toEqual({ start: false, end: false });
    document.nodes = document.nodes.filter((n) => n.type !== "start" && n.type !== "end");
    document.edges = [];
    expect(implicitEnds(document)).toEqual({ start: true, end: true });
    expect(canConnect(document, "start", "draft")).toBe(true);
    expect(canConnect(document, "draft", "start")).toBe(false);
    expect(canConnect(document, "end", "draft")).toBe(false);
    const store = loadedStore(document);
    expect(store.getState().dispatch({ type: "connect", source: "start", target: "draft" })).toMatchObject({
      ok: true,
    });
    expect(store.getState().dispatch({ type: "connect", source: "summarise", target: "end" })).toMatchObject({
      ok: true,
    });
    expect(selectNode("draft")(store.getState())?.data.label).toBe("Draft");
  });
});
