import { describe, expect, it } from "vitest";
import { createEditorUiStore } from "./editor-ui-store";

describe("editor UI store", () => {
  it("focusing a node selects it alone, opens its settings and asks the canvas each time", () => {
    const store = createEditorUiStore();
    store.getState().select({ nodeIds: ["a", "b"], edgeIds: ["e1"] });
    store.getState().openPanel("json");
    store.getState().focusNode("b");
    const first = store.getState();
    expect(first.selectedNodeIds).toEqual(["b"]);
    expect(first.selectedEdgeIds).toEqual([]);
    expect(first.sidePanel).toBe("settings");
    expect(first.focusRequest).toEqual({ nodeId: "b", serial: 1 });
    store.getState().focusNode("b");
    expect(store.getState().focusRequest).toEqual({ nodeId: "b", serial: 2 });
  });

  it("keeps only the selected nodes and edges that are still present, and changes nothing when all are", () => {
    const store = createEditorUiStore();
    store.getState().select({ nodeIds: ["a", "p1", "p2", "note"], edgeIds: ["e1", "pe1"] });
    const present = { nodeIds: new Set(["a", "note", "b"]), edgeIds: new Set(["e1"]) };
    store.getState().keepSelected(present);
    expect(store.getState().selectedNodeIds).toEqual(["a", "note"]);
    expect(store.getState().selectedEdgeIds).toEqual(["e1"]);
    const kept = store.getState();
    store.getState().keepSelected(present);
    expect(store.getState()).toBe(kept);
  });
});
