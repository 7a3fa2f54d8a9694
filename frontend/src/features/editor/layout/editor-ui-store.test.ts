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
});
