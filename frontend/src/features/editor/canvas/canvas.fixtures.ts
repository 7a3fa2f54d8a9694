// Test-only helpers for the canvas's derivation tests (canvas-elements, use-canvas-elements,
// canvas-selection): what the canvas hands its element builders, with nothing selected or marked.
import type { EditorContent } from "../document";
import type { CanvasInputs } from "./canvas-elements";

/** The canvas's inputs for `content`: nothing selected, no problems or compare marks, editable; `extra` overrides. */
export function canvasInputs(content: EditorContent, extra: Partial<CanvasInputs> = {}): CanvasInputs {
  return {
    document: content.document,
    notes: content.notes,
    selectedNodeIds: [],
    selectedEdgeIds: [],
    problems: [],
    marks: { nodes: {}, edges: {} },
    readOnly: false,
    ...extra,
  };
}

/** An edge's accessible description, the same for every edge (the tests do not read it). */
export const describeEdge = () => "edge";
