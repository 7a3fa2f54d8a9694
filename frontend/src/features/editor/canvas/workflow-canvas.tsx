// The canvas: the document's nodes, notes and edges drawn with React Flow. It only reads the
// document store and writes it through commands (moves as one step per drag, connections,
// removals); selection lives in the editor's UI store, shared with the panels.
import "@xyflow/react/dist/style.css";
import "./canvas.css";
import {
  Background,
  type Connection,
  Controls,
  type EdgeChange,
  type NodeChange,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  useStore,
} from "@xyflow/react";
import { type DragEvent, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useShallow } from "zustand/react/shallow";
import { TakenEdgesStyle } from "@/features/run/taken-edges-style";
import { useTheme } from "@/lib/theme";
import {
  canConnect,
  type NodeType,
  type PositionUpdate,
  useDocument,
  useDocumentStore,
  type WorkflowEdge,
} from "../document";
import { type CompareMark, useEditorUi, useEditorUiStore } from "../layout/editor-ui-store";
import { type CanvasActions, useCanvasActions } from "./canvas-actions";
import { NODE_DRAG_TYPE, registerCanvas } from "./canvas-bridge";
import type { FlowEdge, FlowNode } from "./canvas-elements";
import { handleLabel } from "./canvas-graph";
import { type CanvasOverlay, useCanvasKeys } from "./canvas-keys";
import { CanvasMiniMap } from "./canvas-minimap";
import { NoteNodeView, WorkflowNodeView } from "./canvas-nodes";
import { CanvasTextContext, canvasText } from "./canvas-text";
import { CommandPalette } from "./command-palette";
import { KeepCenterOnResize } from "./keep-center-on-resize";
import { useLayoutWarmUp } from "./layout-warm-up";
import { PALETTE_TYPES } from "./node-icons";
import { ShortcutSheet } from "./shortcut-sheet";
import { applyLocalChanges, useCanvasElements } from "./use-canvas-elements";

const NODE_TYPES_VIEW = { workflow: WorkflowNodeView, note: NoteNodeView };
/** Below this zoom a node's text is under 5 px high: nodes are drawn as boxes and the grid is left out. */
export const LOW_DETAIL_ZOOM = 0.35;
const NUDGE_GROUP = "canvas-nudge";
const MULTI_SELECTION_KEYS = ["Shift", "Control", "Meta"];
const PRO_OPTIONS = { hideAttribution: true };

export function WorkflowCanvas() {
  return (
    <ReactFlowProvider>
      <CanvasView />
    </ReactFlowProvider>
  );
}

function CanvasView() {
  const { t } = useTranslation();
  const { resolved } = useTheme();
  const doc = useDocumentStore();
  const ui = useEditorUiStore();
  const flow = useReactFlow<FlowNode, FlowEdge>();
  const actions = useCanvasActions();
  const document = useDocument((s) => s.content.document);
  const notes = useDocument((s) => s.content.notes);
  const storeReadOnly = useDocument((s) => s.readOnly);
  const preview = useEditorUi((s) => s.preview);
  const readOnly = storeReadOnly || preview !== null;
  const { selectedNodeIds, selectedEdgeIds } = useEditorUi(
    useShallow((s) => ({ selectedNodeIds: s.selectedNodeIds, selectedEdgeIds: s.selectedEdgeIds })),
  );
  const problems = useEditorUi((s) => s.problems);
  const marks = useEditorUi((s) => s.compareMarks);
  const focusRequest = useEditorUi((s) => s.focusRequest);
  // Re-renders only when the zoom crosses the threshold, not on every frame of a zoom.
  const lowDetail = useStore((s) => s.transform[2] < LOW_DETAIL_ZOOM);

  const [overlay, setOverlay] = useState<CanvasOverlay | null>(null);
  const dragging = useRef(false);
  const container = useRef<HTMLDivElement>(null);
  // While the view moves, the viewport is its own compositor layer, so a pan moves a painted
  // picture instead of repainting every node and edge each frame; it is painted sharp again when
  // the move ends. Set on the element directly: no React render per gesture.
  const onMoveStart = useCallback(() => container.current?.setAttribute("data-moving", "true"), []);
  const onMoveEnd = useCallback(() => container.current?.removeAttribute("data-moving"), []);
  // Every prop of React Flow that changes is one more update of its store (a pass over the
  // selectors of every node, handle and edge): callbacks keep their identity between renders.
  const onDragStart = useCallback(() => {
    dragging.current = true;
  }, []);

  const text = useMemo(() => canvasText(t), [t]);
  const describeEdge = useCallback(
    (edge: WorkflowEdge, count: number, mark: CompareMark | undefined) => {
      const parts = [
        edge.label
          ? t("editor.canvas.edgeLabelled", { source: edge.source, target: edge.target, label: edge.label })
          : t("editor.canvas.edge", { source: edge.source, target: edge.target }),
      ];
      if (edge.conditional === true) parts.push(t("editor.imported.conditionalEdge"));
      if (count > 0) parts.push(t("editor.canvas.problems", { count }));
      if (mark) parts.push(t(`editor.canvas.mark.${mark}`));
      return parts.join(". ");
    },
    [t],
  );

  // The document (and selection, problems, marks) as React Flow elements, keeping unchanged objects.
  const inputs = useMemo(
    () => ({ document, notes, selectedNodeIds, selectedEdgeIds, problems, marks, readOnly }),
    [document, notes, selectedNodeIds, selectedEdgeIds, problems, marks, readOnly],
  );
  const [{ nodes, edges }, setNodes] = useCanvasElements(inputs, describeEdge);
  useLayoutWarmUp(document.nodes.length, readOnly);

  // An undo or a redo can remove selected nodes (an undone paste): the selection keeps only what
  // the document still has, so the settings panel does not describe nodes that are gone.
  useEffect(() => {
    ui.getState().keepSelected({
      nodeIds: new Set([...document.nodes.map((n) => n.id), ...notes.map((n) => n.id)]),
      edgeIds: new Set(document.edges.map((e) => e.id)),
    });
  }, [ui, document, notes]);

  // The palette, the header and the outline reach the canvas through the bridge.
  useEffect(() => {
    registerCanvas(doc, {
      addNode: (type, at) => actions.addNode(type, at),
      centerNode: actions.centerNode,
      fitView: actions.fit,
    });
    return () => registerCanvas(doc, null);
  }, [doc, actions]);

  useEffect(() => {
    if (focusRequest) requestAnimationFrame(() => actions.centerNode(focusRequest.nodeId));
  }, [focusRequest, actions]);

  const applySelection = useCallback(
    (changes: { id: string; selected: boolean }[], kind: "nodes" | "edges") => {
      const state = ui.getState();
      const current = new Set(kind === "nodes" ? state.selectedNodeIds : state.selectedEdgeIds);
      for (const c of changes) {
        if (c.selected) current.add(c.id);
        else current.delete(c.id);
      }
      const ids = [...current];
      if (kind === "nodes") state.select({ nodeIds: ids, edgeIds: state.selectedEdgeIds });
      else state.select({ nodeIds: state.selectedNodeIds, edgeIds: ids });
    },
    [ui],
  );

  const onNodesChange = useCallback(
    (changes: NodeChange<FlowNode>[]) => {
      const selects: { id: string; selected: boolean }[] = [];
      const local: NodeChange<FlowNode>[] = [];
      const moved: PositionUpdate[] = [];
      for (const change of changes) {
        if (change.type === "select") selects.push(change);
        else if (change.type === "position") {
          local.push(change);
          if (!change.dragging && change.position)
            moved.push({ id: change.id, x: Math.round(change.position.x), y: Math.round(change.position.y) });
        } else if (change.type === "dimensions") local.push(change);
        // Removals go through the Delete key handler as one command.
      }
      if (local.length > 0) setNodes(applyLocalChanges(local));
      if (selects.length > 0) applySelection(selects, "nodes");
      if (moved.length > 0) {
        const wasDrag = dragging.current;
        dragging.current = false;
        const result = doc
          .getState()
          .dispatch(
            wasDrag
              ? { type: "move-nodes", positions: moved }
              : { type: "move-nodes", positions: moved, group: NUDGE_GROUP },
          );
        if (!result.ok) setNodes((current) => [...current]);
      }
    },
    [doc, applySelection, setNodes],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange<FlowEdge>[]) => {
      const selects = changes.filter((c) => c.type === "select");
      if (selects.length > 0) applySelection(selects, "edges");
    },
    [applySelection],
  );

  const onConnect = useCallback(
    (connection: Connection) => {
      actions.connect(connection.source, connection.target, handleLabel(connection.sourceHandle));
    },
    [actions],
  );

  const isValidConnection = useCallback(
    (c: Connection | FlowEdge) =>
      c.source !== c.target && canConnect(doc.getState().content.document, c.source, c.target),
    [doc],
  );

  const onDragOver = useCallback((event: DragEvent) => {
    if (!event.dataTransfer.types.includes(NODE_DRAG_TYPE)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
  }, []);

  const onDrop = useCallback(
    (event: DragEvent) => {
      const type = event.dataTransfer.getData(NODE_DRAG_TYPE) as NodeType;
      if (!(PALETTE_TYPES as readonly string[]).includes(type)) return;
      event.preventDefault();
      const p = flow.screenToFlowPosition({ x: event.clientX, y: event.clientY });
      actions.addNode(type, { x: Math.round(p.x - 104), y: Math.round(p.y - 28) });
    },
    [flow, actions],
  );

  const ariaLabels = useMemo(
    () => ({
      "node.a11yDescription.default": t("editor.canvas.a11y.node"),
      "node.a11yDescription.keyboardDisabled": t("editor.canvas.a11y.node"),
      "node.a11yDescription.ariaLiveMessage": ({ direction, x, y }: { direction: string; x: number; y: number }) =>
        t("editor.canvas.a11y.moved", { direction: t(`editor.canvas.a11y.direction.${direction}`), x, y }),
      "edge.a11yDescription.default": t("editor.canvas.a11y.edge"),
      "controls.ariaLabel": t("editor.canvas.a11y.controls"),
      "controls.zoomIn.ariaLabel": t("editor.canvas.a11y.zoomIn"),
      "controls.zoomOut.ariaLabel": t("editor.canvas.a11y.zoomOut"),
      "controls.fitView.ariaLabel": t("editor.canvas.a11y.fitView"),
      "controls.interactive.ariaLabel": t("editor.canvas.a11y.interactive"),
      "minimap.ariaLabel": t("editor.canvas.a11y.minimap"),
      "handle.ariaLabel": t("editor.canvas.a11y.handle"),
    }),
    [t],
  );

  const keyOptions = useMemo(
    () => ({
      readOnly,
      open: (o: CanvasOverlay) => setOverlay(o),
      hasSelection: () => ui.getState().selectedNodeIds.length > 0,
    }),
    [readOnly, ui],
  );
  useCanvasKeys(actions as CanvasActions, keyOptions);
  // Stable, so the closed palette and shortcut sheet (memoised) skip the canvas's re-renders.
  const onPaletteOpenChange = useCallback((open: boolean) => setOverlay(open ? "palette" : null), []);
  const onShowShortcuts = useCallback(() => setOverlay("shortcuts"), []);
  const onShortcutsOpenChange = useCallback((open: boolean) => setOverlay(open ? "shortcuts" : null), []);

  return (
    <div
      ref={container}
      className="absolute inset-0"
      data-canvas-scope
      data-testid="workflow-canvas"
      data-read-only={readOnly ? "true" : "false"}
      data-detail={lowDetail ? "low" : "full"}
    >
      <h2 className="sr-only">{t("editor.canvas.title")}</h2>
      <CanvasTextContext.Provider value={text}>
        <ReactFlow<FlowNode, FlowEdge>
          nodes={nodes}
          edges={edges}
          nodeTypes={NODE_TYPES_VIEW}
          onNodesChange={onNodesChange}
          onEdgesChange={onEdgesChange}
          onConnect={onConnect}
          isValidConnection={isValidConnection}
          onNodeDragStart={onDragStart}
          onSelectionDragStart={onDragStart}
          onMoveStart={onMoveStart}
          onMoveEnd={onMoveEnd}
          onDragOver={onDragOver}
          onDrop={onDrop}
          nodesDraggable={!readOnly}
          nodesConnectable={!readOnly}
          edgesReconnectable={false}
          deleteKeyCode={null}
          selectionKeyCode="Shift"
          multiSelectionKeyCode={MULTI_SELECTION_KEYS}
          colorMode={resolved}
          onlyRenderVisibleElements={!lowDetail}
          minZoom={0.05}
          maxZoom={2.5}
          fitView
          ariaLabelConfig={ariaLabels}
          proOptions={PRO_OPTIONS}
        >
          {!lowDetail && <Background gap={20} />}
          <CanvasMiniMap className="!bg-card" />
          <Controls showInteractive={false} />
          <KeepCenterOnResize />
        </ReactFlow>
        <TakenEdgesStyle />
      </CanvasTextContext.Provider>
      {readOnly && preview && (
        <div
          className="pointer-events-none absolute top-2 left-1/2 -translate-x-1/2 rounded-md border bg-card px-3 py-1 text-xs font-medium shadow-sm"
          data-testid="canvas-preview-banner"
        >
          {t("editor.canvas.previewBanner", { version: preview.version })}
        </div>
      )}
      <CommandPalette
        open={overlay === "palette" || overlay === "connect"}
        mode={overlay === "connect" ? "connect" : "root"}
        readOnly={readOnly}
        onOpenChange={onPaletteOpenChange}
        onShowShortcuts={onShowShortcuts}
        actions={actions}
      />
      <ShortcutSheet open={overlay === "shortcuts"} onOpenChange={onShortcutsOpenChange} />
    </div>
  );
}
