// The shapes the document store holds. The workflow document is the backend's own type; canvas
// notes live beside it because the backend document has no place for them (yet).
import type { NODE_TYPES, WorkflowDocument } from "./backend-shared.js";

export type { WorkflowDocument } from "./backend-shared.js";
export type WorkflowNode = WorkflowDocument["nodes"][number];
export type WorkflowEdge = WorkflowDocument["edges"][number];
export type StateField = WorkflowDocument["state"][number];
export type NodeType = (typeof NODE_TYPES)[number];

export interface Position {
  x: number;
  y: number;
}

/** A sticky note on the canvas: text only, no effect on runs. */
export interface CanvasNote {
  id: string;
  position: Position;
  size?: { width: number; height: number };
  text: string;
  color?: NoteColor;
}

export const NOTE_COLORS = ["yellow", "blue", "green", "pink", "gray"] as const;
export type NoteColor = (typeof NOTE_COLORS)[number];

/** Everything one undo step restores: the document and the notes, as immutable snapshots. */
export interface EditorContent {
  document: WorkflowDocument;
  notes: CanvasNote[];
}

/** A node or note id with a new position. */
export interface PositionUpdate {
  id: string;
  x: number;
  y: number;
}
