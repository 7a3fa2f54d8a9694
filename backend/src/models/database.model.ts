// Table types for Kysely. Times are ISO-8601 UTC strings and JSON documents are text, so the
// same repository code reads and writes SQLite and PostgreSQL alike.
import type { Selectable } from "kysely";
import type { UserRole } from "../core/authz.js";

export interface UsersTable {
  id: string;
  email: string;
  name: string | null;
  password_hash: string;
  role: UserRole;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  callback_secret: string | null;
}

export interface WorkflowsTable {
  id: string;
  owner_id: string;
  name: string;
  description: string | null;
  /** The current document as JSON text; always equal to the document of `version`. */
  document: string;
  version: number;
  content_hash: string;
  created_at: string;
  updated_at: string;
}

export interface WorkflowVersionsTable {
  workflow_id: string;
  number: number;
  content_hash: string;
  document: string;
  author_id: string;
  created_at: string;
  restored_from: number | null;
}

export interface RunsTable {
  id: string;
  owner_id: string;
  workflow_id: string | null;
  workflow_version: number | null;
  content_hash: string;
  /** The document the run executes, as JSON text. */
  document: string;
  trigger: string;
  mode: string;
  status: string;
  input: string;
  context: string;
  state: string | null;
  output: string | null;
  error: string | null;
  waiting: string | null;
  /** What the worker should do next when the run is queued again: continue or a Human answer. */
  pending_resume: string | null;
  expires_at: string | null;
  metrics: string | null;
  /** Incremented by every worker that takes the run; writes carrying an older value are refused. */
  lease_gen: number;
  lease_owner: string | null;
  lease_expires_at: string | null;
  /**
   * When the current turn began (a worker took the run from `queued`); a worker that takes over a
   * crashed turn keeps it. STUDIO_RUN_TIMEOUT is measured from here, so waits never count.
   */
  turn_started_at: string | null;
  attempt: number;
  next_seq: number;
  idempotency_key: string | null;
  callback_url: string | null;
  api_key_id: string | null;
  /** The run this one was forked from, and the checkpoint of that run it started at (forks only). */
  parent_run_id: string | null;
  parent_checkpoint_id: string | null;
  /** JSON list of the side-effect nodes a fork runs again instead of reusing the parent's results. */
  fork_rerun: string | null;
  /** JSON object of an editor run's pinned outputs by node id: those nodes do not execute. */
  pins: string | null;
  /** The schedule whose fire started the run (trigger `schedule` only). */
  schedule_id: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

export interface RunEventsTable {
  run_id: string;
  seq: number;
  type: string;
  node_id: string | null;
  superstep: number | null;
  ts: string;
  data: string;
}

export interface CheckpointsTable {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  checkpoint: string;
  metadata: string;
  created_at: string;
}

export interface CheckpointWritesTable {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  task_id: string;
  idx: number;
  channel: string;
  value: string;
  task_path: string;
}

export interface CallbackDeliveriesTable {
  id: string;
  run_id: string;
  url: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  created_at: string;
}

/** A callback still to deliver (or delivered, or given up): the outbox survives restarts. */
export interface CallbackOutboxTable {
  run_id: string;
  url: string;
  /** pending, delivered or failed. */
  status: string;
  /** Attempts made so far. */
  attempts: number;
  next_attempt_at: string;
  /** The process delivering it now, and until when its claim holds. */
  claimed_by: string | null;
  claimed_until: string | null;
  created_at: string;
  updated_at: string;
}

export interface SchedulesTable {
  id: string;
  workflow_id: string;
  owner_id: string;
  cron: string;
  timezone: string;
  input: string;
  /** 1 or 0: SQLite has no boolean. */
  enabled: number;
  next_fire_at: string | null;
  last_fire_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface NodeResultsTable {
  run_id: string;
  key: string;
  result: string;
  created_at: string;
}

export interface CredentialsTable {
  id: string;
  owner_id: string;
  name: string;
  type: string;
  /** Sealed JSON of the credential's data (core/secret-box). */
  secret: string;
  /** JSON list of the data's field names, shown instead of the values. */
  fields: string;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
}

export interface Database {
  users: UsersTable;
  api_keys: ApiKeysTable;
  workflows: WorkflowsTable;
  workflow_versions: WorkflowVersionsTable;
  runs: RunsTable;
  run_events: RunEventsTable;
  checkpoints: CheckpointsTable;
  checkpoint_writes: CheckpointWritesTable;
  node_results: NodeResultsTable;
  callback_deliveries: CallbackDeliveriesTable;
  callback_outbox: CallbackOutboxTable;
  schedules: SchedulesTable;
  credentials: CredentialsTable;
}

export type UserRow = Selectable<UsersTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type WorkflowRow = Selectable<WorkflowsTable>;
export type WorkflowVersionRow = Selectable<WorkflowVersionsTable>;
export type RunRow = Selectable<RunsTable>;
export type RunEventRow = Selectable<RunEventsTable>;
export type CallbackOutboxRow = Selectable<CallbackOutboxTable>;
export type ScheduleRow = Selectable<SchedulesTable>;
export type CredentialRow = Selectable<CredentialsTable>;
