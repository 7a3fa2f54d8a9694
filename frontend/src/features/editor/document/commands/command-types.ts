// The named edits. Canvas, inspector, state editor and JSON view change the document only by
// dispatching one of these; each becomes one undo step labelled by its name.
import type { Draft } from "immer";
import type { SettingPath } from "../backend-shared.js";
import type { DocumentError } from "../document-errors.js";
import type { CanvasNote, EditorContent, NoteColor, Position, PositionUpdate, StateField } from "../document-types.js";
import type { HistoryParams } from "../history.js";

export type Command =
  | { type: "add-node"; node: { type: string; position: Position; data?: Record<string, unknown>; id?: string } }
  /** Nodes (with every edge touching them), edges and notes; `cut` labels it as a cut. */
  | { type: "remove"; nodeIds?: string[]; edgeIds?: string[]; noteIds?: string[]; cut?: boolean }
  /** Node and note positions; `group` merges consecutive moves (arrow-key nudges) into one step. */
  | { type: "move-nodes"; positions: PositionUpdate[]; group?: string }
  /** Positions of many nodes and notes from an automatic layout, as one step. */
  | { type: "apply-layout"; positions: PositionUpdate[] }
  | { type: "connect"; source: string; target: string; label?: string; id?: string }
  | { type: "disconnect"; edgeIds: string[] }
  /** The label of an edge (a Condition, Decision or For each output); null removes it. */
  | { type: "set-edge-label"; edgeId: string; label: string | null }
  /**
   * One setting at `path` in the node's data (`[]`: the whole data object); `undefined` removes it.
   * Consecutive updates of the same setting merge into one undo step until the group is closed.
   */
  | { type: "update-node-data"; nodeId: string; path: SettingPath; value: unknown }
  /** The node's display label (`data.label`); empty removes it. */
  | { type: "rename-node"; nodeId: string; label: string }
  | { type: "add-state-field"; field: StateField; index?: number }
  /** Type, reducer, default or description of a field; keys listed in `remove` are taken out. */
  | {
      type: "update-state-field";
      name: string;
      changes: Partial<Omit<StateField, "name">>;
      remove?: ("reducer" | "default" | "description")[];
    }
  | { type: "remove-state-field"; name: string }
  /** Renames a field and every {{state.<name>…}} reference and setting that names it, as one step. */
  | { type: "rename-state-field"; from: string; to: string }
  | {
      type: "add-note";
      note: { position: Position; text?: string; size?: CanvasNote["size"]; color?: NoteColor; id?: string };
    }
  | {
      type: "update-note";
      id: string;
      changes: { text?: string; size?: CanvasNote["size"]; color?: NoteColor };
    }
  /** Clipboard text (JSON): new ids, inner edges kept, missing state fields added; at `at` or offset. */
  | { type: "paste"; text: string; at?: Position }
  | { type: "duplicate"; nodeIds: string[]; noteIds?: string[] }
  /** A whole document (JSON view edit, version restore, merge, import); notes kept unless given. */
  | { type: "replace-document"; document: unknown; notes?: unknown; reason: "json" | "restore" | "merge" | "import" }
  /** The workflow's name or description (null removes the description). */
  | { type: "update-workflow"; name?: string; description?: string | null };

export type CommandType = Command["type"];
export type CommandOf<T extends CommandType> = Extract<Command, { type: T }>;

/** What a command did, for its history entry and its caller. */
export interface Applied {
  labelKey: string;
  params: HistoryParams;
  group?: string;
  /** Ids the command created (added or pasted nodes, notes, edges), for the canvas to select. */
  created?: string[];
}

export type CommandHandler<T extends CommandType> = (draft: Draft<EditorContent>, command: CommandOf<T>) => Applied;

export type CommandResult = { ok: true; changed: boolean; created: string[] } | { ok: false; error: DocumentError };
