// Studio events: what a run reports, in order. Every event has the run id, a per-run `seq`, the
// time, and the node and superstep where they apply.

export const RUN_STATUSES = [
  "queued",
  "running",
  "waiting",
  "paused",
  "ok",
  "error",
  "cancelled",
  "timeout",
  "expired",
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export type StudioEventType =
  | "run_started"
  | "node_started"
  | "node_token"
  | "node_finished"
  | "run_waiting"
  | "run_paused"
  | "error"
  | "run_finished";

export interface StudioEvent {
  run_id: string;
  seq: number;
  ts: string;
  type: StudioEventType;
  node_id?: string;
  superstep?: number;
  data: Record<string, unknown>;
}

/** An event as a node emits it; the runtime adds run_id, seq and ts. */
export type NodeEvent = Omit<StudioEvent, "run_id" | "seq" | "ts">;

export interface EventError {
  code: string;
  message: string;
  details?: unknown;
}
