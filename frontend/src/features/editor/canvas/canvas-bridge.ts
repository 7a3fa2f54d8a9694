// The canvas's actions for the parts of the editor drawn outside it (palette, header, outline):
// they live in other columns of the layout, outside the canvas's React Flow provider, so the canvas
// registers what it can do here, keyed by the document store they share.
import { useSyncExternalStore } from "react";
import type { DocumentStore, NodeType, Position } from "../document";

export interface CanvasApi {
  /** Adds a node at the centre of the view (or at `at`), selects it and returns its id. */
  addNode(type: NodeType, at?: Position): string | undefined;
  /** Brings a node into the middle of the view. */
  centerNode(id: string): void;
  fitView(): void;
}

const apis = new WeakMap<DocumentStore, CanvasApi>();
const listeners = new Set<() => void>();

export function registerCanvas(store: DocumentStore, api: CanvasApi | null): void {
  if (api) apis.set(store, api);
  else apis.delete(store);
  for (const listener of listeners) listener();
}

export function canvasApi(store: DocumentStore): CanvasApi | undefined {
  return apis.get(store);
}

export function useCanvasApi(store: DocumentStore): CanvasApi | undefined {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => apis.get(store),
  );
}

/** The drag-and-drop type of a node type dragged from the palette. */
export const NODE_DRAG_TYPE = "application/x-superstep-node-type";
