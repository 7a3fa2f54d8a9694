import { RunPanel } from "@/features/run/run-panel";
import type { Workflow } from "@/lib/api";
import { NodePalette } from "../canvas/node-palette";
import { WorkflowCanvas } from "../canvas/workflow-canvas";
import { DocumentStoreProvider } from "../document";
import { ImportedBanner } from "../imported/imported-banner";
import { EditorHeader } from "./editor-header";
import { EditorSidePanel } from "./editor-side-panel";
import { useEditorUi } from "./editor-ui-store";

/**
 * The editor's frame: a header (name, history, save), the node palette on the left, the canvas in
 * the middle and the side panels on the right. The run panel and its trace are in the bottom row,
 * under the canvas.
 */
export function EditorLayout({ workflow }: { workflow: Workflow }) {
  // A version preview puts its own read-only store under the canvas; the panels keep the document.
  const preview = useEditorUi((s) => s.preview);
  return (
    <div
      className="grid h-[calc(100dvh-3.5rem)] min-h-0 grid-cols-[auto_minmax(0,1fr)_minmax(20rem,26rem)] grid-rows-[auto_minmax(0,1fr)_auto]"
      data-testid="editor"
    >
      <div className="col-span-3 border-b">
        <EditorHeader workflow={workflow} />
        <ImportedBanner />
      </div>
      <aside className="row-span-2 min-h-0 overflow-y-auto border-r" data-testid="editor-palette-column">
        <NodePalette />
      </aside>
      <section className="relative min-h-0 min-w-0" data-testid="editor-canvas-column">
        {preview ? (
          <DocumentStoreProvider key={preview.version} store={preview.store}>
            <WorkflowCanvas />
          </DocumentStoreProvider>
        ) : (
          <WorkflowCanvas />
        )}
      </section>
      <div className="row-span-2 min-h-0 border-l">
        <EditorSidePanel />
      </div>
      <div className="min-w-0" data-testid="editor-bottom-slot">
        <RunPanel workflow={workflow} />
      </div>
    </div>
  );
}
