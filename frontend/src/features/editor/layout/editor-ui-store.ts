// What the editor's panels share besides the document: the selection, the open side panel, and a
// request to bring a node into view (the validation checklist and the outline ask; the canvas
// answers). One store per open editor, like the document store; it is not part of undo.
import { createContext, createElement, type ReactNode, useContext } from "react";
import { useStore } from "zustand";
import { createStore, type StoreApi } from "zustand/vanilla";
import type { DocumentStore } from "../document";

export const SIDE_PANELS = ["settings", "state", "json", "problems", "versions", "outline", "triggers"] as const;
export type SidePanel = (typeof SIDE_PANELS)[number];

/** One problem the validator found, as the canvas and the checklist show it. */
export interface ShownProblem {
  code: string;
  message: string;
  nodeId?: string;
  edgeId?: string;
}

/** How an element differs in a version comparison; the canvas colours it. */
export type CompareMark = "added" | "removed" | "changed";

export interface EditorUiState {
  selectedNodeIds: readonly string[];
  selectedEdgeIds: readonly string[];
  sidePanel: SidePanel;
  /** Increments on each request, so asking twice for the same node still moves the view. */
  focusRequest: { nodeId: string; serial: number } | null;
  /** The validator's latest problems (the validation panel writes them, the canvas marks them). */
  problems: readonly ShownProblem[];
  /** A read-only version shown on the canvas instead of the document being edited. */
  preview: { version: number; store: DocumentStore } | null;
  /** Marks of a version comparison, by node and edge id (empty when not comparing). */
  compareMarks: { nodes: Readonly<Record<string, CompareMark>>; edges: Readonly<Record<string, CompareMark>> };
  select(selection: { nodeIds?: readonly string[]; edgeIds?: readonly string[] }): void;
  /** Drops from the selection what is not in `present` (nodes and notes, edges); no change when nothing is dropped. */
  keepSelected(present: { nodeIds: ReadonlySet<string>; edgeIds: ReadonlySet<string> }): void;
  openPanel(panel: SidePanel): void;
  /** Selects the node, opens its settings and asks the canvas to show it. */
  focusNode(nodeId: string): void;
  setProblems(problems: readonly ShownProblem[]): void;
  setPreview(preview: EditorUiState["preview"]): void;
  setCompareMarks(marks: EditorUiState["compareMarks"] | null): void;
}

const NO_MARKS: EditorUiState["compareMarks"] = { nodes: {}, edges: {} };

export type EditorUiStore = StoreApi<EditorUiState>;

export function createEditorUiStore(): EditorUiStore {
  return createStore<EditorUiState>()((set, get) => ({
    selectedNodeIds: [],
    selectedEdgeIds: [],
    sidePanel: "settings",
    focusRequest: null,
    problems: [],
    preview: null,
    compareMarks: NO_MARKS,
    select: ({ nodeIds = [], edgeIds = [] }) => set({ selectedNodeIds: nodeIds, selectedEdgeIds: edgeIds }),
    keepSelected: ({ nodeIds, edgeIds }) => {
      const { selectedNodeIds, selectedEdgeIds } = get();
      const nodes = selectedNodeIds.filter((id) => nodeIds.has(id));
      const edges = selectedEdgeIds.filter((id) => edgeIds.has(id));
      if (nodes.length === selectedNodeIds.length && edges.length === selectedEdgeIds.length) return;
      set({ selectedNodeIds: nodes, selectedEdgeIds: edges });
    },
    openPanel: (sidePanel) => set({ sidePanel }),
    focusNode: (nodeId) =>
      set({
        selectedNodeIds: [nodeId],
        selectedEdgeIds: [],
        sidePanel: "settings",
        focusRequest: { nodeId, serial: (get().focusRequest?.serial ?? 0) + 1 },
      }),
    setProblems: (problems) => set({ problems }),
    setPreview: (preview) => set({ preview }),
    setCompareMarks: (marks) => set({ compareMarks: marks ?? NO_MARKS }),
  }));
}

const EditorUiContext = createContext<EditorUiStore | null>(null);

export function EditorUiProvider({ store, children }: { store: EditorUiStore; children: ReactNode }) {
  return createElement(EditorUiContext.Provider, { value: store }, children);
}

export function useEditorUiStore(): EditorUiStore {
  const store = useContext(EditorUiContext);
  if (!store) throw new Error("useEditorUi needs an EditorUiProvider above it");
  return store;
}

export function useEditorUi<T>(selector: (state: EditorUiState) => T): T {
  return useStore(useEditorUiStore(), selector);
}
