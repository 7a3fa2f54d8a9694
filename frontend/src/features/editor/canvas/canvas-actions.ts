// What the canvas can do, as one set of stable functions for its keys, its buttons, the command
// palette and the other columns. Every change goes through the document store's commands; a
// refused command is shown as its translated message.
import { type ReactFlowInstance, useReactFlow } from "@xyflow/react";
import type { TFunction } from "i18next";
import { useMemo } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import {
  type Command,
  copySelection,
  type DocumentError,
  type DocumentStore,
  type NodeType,
  type Position,
  useDocumentStore,
} from "../document";
import { type EditorUiStore, useEditorUiStore } from "../layout/editor-ui-store";
import type { FlowEdge, FlowNode } from "./canvas-elements";
import { reachable } from "./canvas-graph";
import { type LayoutNode, layoutScope, placeAt } from "./layout-scope";
import { runLayout, WORKER_MIN_NODES } from "./run-layout";
import { readClipboardText, writeClipboardText } from "./system-clipboard";

export interface CanvasActions {
  run(command: Command): string[] | undefined;
  addNode(type: NodeType, at?: Position): string | undefined;
  addNote(at?: Position): void;
  connect(source: string, target: string, label?: string): boolean;
  remove(): void;
  copy(): Promise<void>;
  cut(): Promise<void>;
  paste(): Promise<void>;
  duplicate(): void;
  selectAll(): void;
  selectReachable(direction: "upstream" | "downstream"): void;
  layout(): Promise<void>;
  fit(): void;
  zoomIn(): void;
  zoomOut(): void;
  centerNode(id: string): void;
  viewCentre(): Position;
  undo(): void;
  redo(): void;
}

export function showDocumentError(t: TFunction, error: DocumentError): void {
  toast.error(t(`editor.errors.${error.code}`, error.params ?? {}));
}

const NODE_SIZE = { width: 208, height: 56 };

export function createCanvasActions(
  doc: DocumentStore,
  ui: EditorUiStore,
  flow: ReactFlowInstance<FlowNode, FlowEdge>,
  t: TFunction,
): CanvasActions {
  const content = () => doc.getState().content;
  const noteIds = () => new Set(content().notes.map((n) => n.id));
  const selection = () => {
    const { selectedNodeIds, selectedEdgeIds } = ui.getState();
    const notes = noteIds();
    return {
      nodes: selectedNodeIds.filter((id) => !notes.has(id) && content().document.nodes.some((n) => n.id === id)),
      notes: selectedNodeIds.filter((id) => notes.has(id)),
      edges: [...selectedEdgeIds],
    };
  };
  const selectCreated = (created: string[]) => {
    const { document, notes } = content();
    const nodeLike = new Set([...document.nodes.map((n) => n.id), ...notes.map((n) => n.id)]);
    ui.getState().select({
      nodeIds: created.filter((id) => nodeLike.has(id)),
      edgeIds: created.filter((id) => !nodeLike.has(id)),
    });
  };
  const run = (command: Command) => {
    const result = doc.getState().dispatch(command);
    if (!result.ok) {
      showDocumentError(t, result.error);
      return undefined;
    }
    return result.created;
  };
  const viewCentre = (): Position => {
    const pane = document.querySelector<HTMLElement>("[data-testid='workflow-canvas']");
    const rect = pane?.getBoundingClientRect();
    if (!rect) return { x: 0, y: 0 };
    const p = flow.screenToFlowPosition({ x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 });
    return { x: Math.round(p.x - NODE_SIZE.width / 2), y: Math.round(p.y - NODE_SIZE.height / 2) };
  };
  const pasteText = (text: string) => {
    const created = run({ type: "paste", text });
    if (created) selectCreated(created);
  };
  const actions: CanvasActions = {
    run,
    viewCentre,
    addNode(type, at) {
      const created = run({ type: "add-node", node: { type, position: at ?? viewCentre() } });
      if (created) selectCreated(created);
      return created?.[0];
    },
    addNote(at) {
      const created = run({ type: "add-note", note: { position: at ?? viewCentre(), text: "" } });
      if (created) selectCreated(created);
    },
    connect(source, target, label) {
      const created = run({ type: "connect", source, target, ...(label ? { label } : {}) });
      return created !== undefined;
    },
    remove() {
      const s = selection();
      if (s.nodes.length + s.edges.length + s.notes.length === 0) return;
      const edges = new Set(s.nodes);
      // Edges of deleted nodes go with them; naming them again would be refused as not found.
      const edgeIds = s.edges.filter((id) => {
        const e = content().document.edges.find((x) => x.id === id);
        return e && !edges.has(e.source) && !edges.has(e.target);
      });
      if (run({ type: "remove", nodeIds: s.nodes, edgeIds, noteIds: s.notes })) ui.getState().select({});
    },
    async copy() {
      const s = selection();
      if (s.nodes.length + s.notes.length === 0) {
        toast.error(t("editor.errors.EDITOR_NOTHING_SELECTED"));
        return;
      }
      await writeClipboardText(copySelection(content(), s.nodes, s.notes));
      toast.success(t("editor.canvas.copied", { count: s.nodes.length + s.notes.length }));
    },
    async cut() {
      const s = selection();
      if (s.nodes.length + s.notes.length === 0) {
        toast.error(t("editor.errors.EDITOR_NOTHING_SELECTED"));
        return;
      }
      const text = copySelection(content(), s.nodes, s.notes);
      await writeClipboardText(text);
      if (run({ type: "remove", nodeIds: s.nodes, noteIds: s.notes, cut: true })) ui.getState().select({});
    },
    async paste() {
      pasteText(await readClipboardText());
    },
    duplicate() {
      const s = selection();
      if (s.nodes.length + s.notes.length === 0) return;
      const created = run({ type: "duplicate", nodeIds: s.nodes, noteIds: s.notes });
      if (created) selectCreated(created);
    },
    selectAll() {
      const { document, notes } = content();
      ui.getState().select({
        nodeIds: [...document.nodes.map((n) => n.id), ...notes.map((n) => n.id)],
        edgeIds: document.edges.map((e) => e.id),
      });
    },
    selectReachable(direction) {
      const s = selection();
      if (s.nodes.length === 0) return;
      const ids = reachable(content().document.edges, s.nodes, direction);
      const nodeIds = content()
        .document.nodes.filter((n) => ids.has(n.id))
        .map((n) => n.id);
      ui.getState().select({ nodeIds });
    },
    async layout() {
      const { document } = content();
      const at = new Map(document.nodes.map((n) => [n.id, n.position]));
      const nodes: LayoutNode[] = flow
        .getNodes()
        .filter((n) => n.type === "workflow")
        .map((n) => ({
          id: n.id,
          width: n.measured?.width ?? NODE_SIZE.width,
          height: n.measured?.height ?? NODE_SIZE.height,
          position: at.get(n.id) ?? n.position,
          fixed: n.type === "workflow" && n.data.implicit,
        }));
      // Two or more selected nodes: only they are laid out, where they are.
      const { input, anchor } = layoutScope(nodes, document.edges, new Set(ui.getState().selectedNodeIds));
      // Larger graphs are laid out in the worker, off the main thread.
      const positions = placeAt(await runLayout(input, input.nodes.length > WORKER_MIN_NODES), anchor);
      if (positions.length === 0) return;
      if (run({ type: "apply-layout", positions }) && !anchor)
        requestAnimationFrame(() => flow.fitView({ duration: 200 }));
    },
    fit() {
      void flow.fitView({ duration: 200, padding: 0.15 });
    },
    zoomIn() {
      void flow.zoomIn({ duration: 120 });
    },
    zoomOut() {
      void flow.zoomOut({ duration: 120 });
    },
    centerNode(id) {
      const node = flow.getInternalNode(id);
      if (!node) return;
      const { x, y } = node.internals.positionAbsolute;
      const width = node.measured.width ?? NODE_SIZE.width;
      const height = node.measured.height ?? NODE_SIZE.height;
      void flow.setCenter(x + width / 2, y + height / 2, { zoom: Math.max(flow.getZoom(), 1), duration: 250 });
    },
    undo() {
      doc.getState().undo();
    },
    redo() {
      doc.getState().redo();
    },
  };
  return actions;
}

/** The canvas's actions (inside its React Flow provider). */
export function useCanvasActions(): CanvasActions {
  const doc = useDocumentStore();
  const ui = useEditorUiStore();
  const flow = useReactFlow<FlowNode, FlowEdge>();
  const { t } = useTranslation();
  return useMemo(() => createCanvasActions(doc, ui, flow, t), [doc, ui, flow, t]);
}
