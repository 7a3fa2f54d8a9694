// What the server sends about a run (backend: engine/runtime/events.ts, schemas/run-fork.schema.ts),
// as the run panel reads it.
export {
  type EventError,
  type ForkPreview,
  type NodeRunResult,
  RUN_STATUSES,
  type RunEvent,
  type RunEventType,
  type RunStatus,
} from "./backend-shared";

import type { EventError, RunStatus } from "./backend-shared";

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
