// Puts a version (or a comparison of two) on the canvas: a read-only document store of its own,
// handed to the canvas through the UI store; the document being edited is not touched.
import { createDocumentStore, type WorkflowDocument } from "../document";
import type { EditorUiStore } from "../layout/editor-ui-store";
import type { DocumentComparison } from "./compare-documents";

function readOnlyStore(workflowId: string, version: number, document: WorkflowDocument) {
  const store = createDocumentStore();
  const loaded = store.getState().load({ workflowId, version, document, readOnly: true });
  return loaded.ok ? store : null;
}

export function showVersion(
  ui: EditorUiStore,
  workflowId: string,
  version: number,
  document: WorkflowDocument,
): boolean {
  const store = readOnlyStore(workflowId, version, document);
  ui.getState().setCompareMarks(null);
  ui.getState().setPreview(store ? { version, store } : null);
  return store !== null;
}

/** Both versions' elements on one canvas, marked; the newer document alone if the union cannot load. */
export function showComparison(
  ui: EditorUiStore,
  workflowId: string,
  newer: { version: number; document: WorkflowDocument },
  comparison: DocumentComparison,
): boolean {
  const store =
    readOnlyStore(workflowId, newer.version, comparison.union) ??
    readOnlyStore(workflowId, newer.version, newer.document);
  ui.getState().setPreview(store ? { version: newer.version, store } : null);
  ui.getState().setCompareMarks(store ? comparison.marks : null);
  return store !== null;
}

export function backToEditing(ui: EditorUiStore): void {
  ui.getState().setPreview(null);
  ui.getState().setCompareMarks(null);
}
