import { describe, expect, it } from "vitest";
import type { WorkflowDocument } from "../document";
import { sampleDocument } from "../document/document.fixtures";
import { createEditorUiStore } from "../layout/editor-ui-store";
import { compareDocuments } from "./compare-documents";
import { backToEditing, showComparison, showVersion } from "./version-canvas";

describe("versions on the canvas", () => {
  it("previews a version in a read-only store of its own", () => {
    const ui = createEditorUiStore();
    expect(showVersion(ui, "w", 2, sampleDocument())).toBe(true);
    const preview = ui.getState().preview;
    expect(preview?.version).toBe(2);
    const state = preview!.store.getState();
    expect(state.readOnly).toBe(true);
    expect(state.dispatch({ type: "update-workflow", name: "x" })).toEqual({
      ok: false,
      error: { code: "EDITOR_READ_ONLY" },
    });
    backToEditing(ui);
    expect(ui.getState().preview).toBeNull();
  });

  it("shows both versions' nodes, marked, for a comparison, and clears the marks on the way back", () => {
    const ui = createEditorUiStore();
    const older = sampleDocument();
    const newer: WorkflowDocument = { ...older, nodes: older.nodes.filter((n) => n.id !== "draft") };
    newer.edges = older.edges.filter((e) => e.source !== "draft" && e.target !== "draft");
    const comparison = compareDocuments(older, newer);
    expect(showComparison(ui, "w", { version: 3, document: newer }, comparison)).toBe(true);
    const { preview, compareMarks } = ui.getState();
    expect(preview?.store.getState().content.document.nodes.map((n) => n.id)).toContain("draft");
    expect(compareMarks.nodes).toEqual({ draft: "removed" });
    backToEditing(ui);
    expect(ui.getState().compareMarks).toEqual({ nodes: {}, edges: {} });
  });

  it("falls back to the newer document alone when both together cannot be loaded", () => {
    const ui = createEditorUiStore();
    const newer = sampleDocument();
    const comparison = compareDocuments(newer, newer);
    // A union the store refuses (here: a node type it does not know) leaves the newer version on the canvas.
    const odd = { ...newer.nodes[0]!, id: "odd", type: "webhook" } as unknown as WorkflowDocument["nodes"][number];
    const broken = { ...comparison, union: { ...newer, nodes: [...newer.nodes, odd] } };
    expect(showComparison(ui, "w", { version: 3, document: newer }, broken)).toBe(true);
    expect(ui.getState().preview?.store.getState().content.document.nodes).toHaveLength(newer.nodes.length);
  });
});
