import { describe, expect, it } from "vitest";
import { documentText, type WorkflowDocument } from "../document";
import { sampleDocument } from "../document/document.fixtures";
import { compareDocuments, SETTING_CHANGES_MAX, sameJson, settingChanges } from "./compare-documents";
import { jsonDiff } from "./json-diff";

function edited(change: (d: WorkflowDocument) => void): WorkflowDocument {
  const document = structuredClone(sampleDocument());
  change(document);
  return document;
}

describe("comparing two versions", () => {
  it("finds nothing between equal documents, whatever their key order", () => {
    const a = sampleDocument();
    const reversed = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(reversed)
        : value !== null && typeof value === "object"
          ? Object.fromEntries(
              Object.entries(value)
                .reverse()
                .map(([k, v]) => [k, reversed(v)]),
            )
          : value;
    const b = reversed(a) as WorkflowDocument;
    expect(JSON.stringify(b)).not.toBe(JSON.stringify(a));
    const result = compareDocuments(a, b);
    expect(result.marks).toEqual({ nodes: {}, edges: {} });
    expect([result.nodes, result.edges, result.state, result.moved, result.workflow]).toEqual([[], [], [], [], []]);
    expect(sameJson({ x: 1, y: [1, { z: 2 }] }, { y: [1, { z: 2 }], x: 1 })).toBe(true);
  });

  it("marks added, removed and changed nodes and edges, and lists the settings that changed", () => {
    const a = sampleDocument();
    const b = edited((d) => {
      d.nodes = d.nodes.filter((n) => n.id !== "draft");
      d.edges = d.edges.filter((e) => e.source !== "draft" && e.target !== "draft");
      d.nodes.push({ id: "note", type: "code", position: { x: 9, y: 9 }, data: { language: "javascript", code: "x" } });
      d.edges.push({ id: "e_new", source: "start", target: "note" });
      const check = d.nodes.find((n) => n.id === "check")!;
      const rules = check.data.rules as { label: string }[];
      rules[0]!.label = "very high";
      rules.pop();
      check.data.label = "Check score";
    });
    const result = compareDocuments(a, b);
    const removedEdges = a.edges.filter((e) => e.source === "draft" || e.target === "draft").map((e) => e.id);
    expect(result.marks.nodes).toEqual({ note: "added", check: "changed", draft: "removed" });
    expect(result.marks.edges).toEqual({
      e_new: "added",
      ...Object.fromEntries(removedEdges.map((id) => [id, "removed"])),
    });
    const check = result.nodes.find((n) => n.id === "check");
    expect(check).toMatchObject({ mark: "changed", label: "Check score", type: "condition" });
    expect(check?.settings).toEqual(
      expect.arrayContaining([
        { path: "rules.0.label", kind: "changed" },
        { path: "rules.1", kind: "removed" },
        { path: "label", kind: expect.stringMatching(/added|changed/) },
      ]),
    );
    expect(result.nodes.find((n) => n.id === "draft")).toMatchObject({ mark: "removed", label: "Draft", settings: [] });
    // One canvas shows both: the newer document plus what was removed.
    expect(result.union.nodes.map((n) => n.id).sort()).toEqual([...b.nodes.map((n) => n.id), "draft"].sort());
    expect(result.union.edges).toHaveLength(b.edges.length + removedEdges.length);
  });

  it("tells a moved node from a changed one, and a relabelled edge from a new one", () => {
    const b = edited((d) => {
      d.nodes[0]!.position = { x: 500, y: 500 };
      const labelled = d.edges.find((e) => e.label !== undefined)!;
      labelled.label = "renamed";
    });
    const result = compareDocuments(sampleDocument(), b);
    expect(result.moved).toEqual([sampleDocument().nodes[0]!.id]);
    expect(result.marks.nodes).toEqual({});
    expect(Object.values(result.marks.edges)).toEqual(["changed"]);
  });

  it("lists state field and workflow changes", () => {
    const b = edited((d) => {
      d.name = "Renamed";
      d.description = "Now described";
      d.state = d.state.filter((f) => f.name !== "summaries");
      d.state.push({ name: "extra", type: "number" });
      const answer = d.state.find((f) => f.name === "answer")!;
      answer.type = "any";
      delete answer.description;
    });
    const result = compareDocuments(sampleDocument(), b);
    expect(result.workflow).toEqual(["name", "description"]);
    expect(result.state).toEqual([
      { name: "answer", mark: "changed", keys: ["type", "description"] },
      { name: "extra", mark: "added", keys: [] },
      { name: "summaries", mark: "removed", keys: [] },
    ]);
  });

  it("stops listing setting paths after the limit", () => {
    const a = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`k${i}`, i]));
    const b = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`k${i}`, i + 1]));
    expect(settingChanges(a, b)).toHaveLength(SETTING_CHANGES_MAX);
    expect(settingChanges(1, 2)).toEqual([{ path: "/", kind: "changed" }]);
  });
});

describe("JSON diff", () => {
  it("shows changed lines with their numbers and folds long unchanged stretches", () => {
    const a = sampleDocument();
    const b = edited((d) => {
      d.name = "Renamed";
    });
    const lines = jsonDiff(documentText(a), documentText(b));
    expect(lines.filter((l) => l.kind === "removed")).toEqual([
      { kind: "removed", text: '  "name": "Sample",', oldLine: 2 },
    ]);
    expect(lines.filter((l) => l.kind === "added")).toEqual([
      { kind: "added", text: '  "name": "Renamed",', newLine: 2 },
    ]);
    const folded = lines.filter((l) => l.kind === "folded");
    expect(folded).toHaveLength(1);
    const total = documentText(a).split("\n").length - 1;
    // Every line of the old text is accounted for: shown, removed or folded.
    const shown = lines.filter((l) => l.kind === "same" || l.kind === "removed").length;
    expect(shown + (folded[0]?.kind === "folded" ? folded[0].count : 0)).toBe(total);
    expect(jsonDiff("same\n", "same\n")).toEqual([{ kind: "same", text: "same", oldLine: 1, newLine: 1 }]);
  });
});
