// What the server sends about a run (backend: engine/runtime/events.ts, schemas/run-fork.schema.ts),
// as the run panel reads it.
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

/** Statuses after which a run sends nothing more until someone continues or resumes it. */
export const ENDED_STATUSES: ReadonlySet<RunStatus> = new Set(["ok", "error", "cancelled", "timeout", "expired"]);

export type RunEventType =
  | "run_started"
  | "node_started"
  | "node_token"
  | "node_finished"
  | "run_waiting"
  | "run_paused"
  | "error"
  | "run_finished";

export interface RunEvent {
  run_id: string;
  seq: number;
  ts: string;
  type: RunEventType;
  node_id?: string;
  superstep?: number;
  data: Record<string, unknown>;
}

export interface EventError {
  code: string;
  message: string;
  details?: unknown;
}

export interface HumanField {
  name: string;
  type: "text" | "string" | "number" | "boolean" | "select";
  label?: string;
  required?: boolean;
  options?: string[];
}

/** What a run waiting at a Human node asks for. */
export interface HumanRequest {
  node_id: string;
  message: string;
  fields: HumanField[];
  timeout_seconds: number | null;
  expires_at: string | null;
}

/** One superstep as its checkpoint recorded it (GET /api/runs/:id/steps). */
export interface RunStep {
  superstep: number;
  checkpoint_id: string | null;
  created_at: string | null;
  nodes: { node_id: string; status: "ok" | "error"; reused: boolean; iteration: string | null }[];
  state: Record<string, unknown> | null;
}

export interface ForkPreview {
  run_id: string;
  checkpoint_id: string;
  superstep: number;
  next: string[];
  side_effects: { node_id: string; type: string; action: "reuse" | "run_again" | "run"; parent_results: number }[];
  state_changes: string[];
}

/** A run as GET /api/runs/:id answers (the fields the panel reads). */
export interface RunView {
  id: string;
  workflow_id: string | null;
  workflow_version: number | null;
  status: RunStatus;
  trigger?: string;
  input?: Record<string, unknown> | null;
  state?: Record<string, unknown> | null;
  output?: Record<string, unknown> | null;
  error?: EventError | null;
  waiting?: HumanRequest | null;
  mode?: "full" | "step";
  parent_run_id?: string | null;
  parent_checkpoint_id?: string | null;
  created_at?: string;
  started_at?: string | null;
  finished_at?: string | null;
}

/** What running one node alone answers (POST /api/node-runs). */
export interface NodeRunResult {
  node_id: string;
  node_type: string;
  status: "ok" | "error";
  input_state: Record<string, unknown>;
  output: Record<string, unknown> | null;
  state: Record<string, unknown> | null;
  route: string | null;
  usage: { input_tokens: number; output_tokens: number } | null;
  duration_ms: number;
  error: EventError | null;
}
