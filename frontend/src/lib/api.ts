// The UI's only door to the API: unwraps {"data": …} and turns {"error": …} into ApiError,
// whose code the UI translates (errors.<CODE> in the locale files). It sends the session's bearer
// token; when the server says the session is over (expired, invalid, missing), it forgets the
// session and tells whoever listens (the router sends the person to the login page and back).

import type { z } from "zod";
import type { GithubImportBody, importJobView } from "../../../backend/src/schemas/import.schema.js";
import { clearSession, getSession, type Session, type SessionUser } from "./session";

export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: unknown;

  constructor(code: string, status: number, message: string, details: unknown) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = status;
    this.details = details;
  }
}

/** The 401 codes that mean "sign in again" (not "wrong password"). */
export const SESSION_ENDED_CODES = new Set(["AUTH_REQUIRED", "AUTH_INVALID_TOKEN", "AUTH_TOKEN_EXPIRED"]);

export function isSessionEnded(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 401 && SESSION_ENDED_CODES.has(error.code);
}

export interface Health {
  status: "ok";
  version: string;
  db: "sqlite" | "postgres";
  queue: "memory" | "redis";
  import_enabled: boolean;
}

export interface AuthStatus {
  setup_required: boolean;
  signup_allowed: boolean;
}

export interface Credentials {
  email: string;
  password: string;
}

export interface SetupBody extends Credentials {
  name?: string;
}

export type { Session, SessionUser };

export interface StateField {
  name: string;
  type: "string" | "number" | "boolean" | "object" | "list" | "any";
  reducer?: "replace" | "append" | "merge" | "add";
  default?: unknown;
  description?: string;
}

export interface WorkflowNode {
  id: string;
  type: string;
  position: { x: number; y: number };
  data: Record<string, unknown>;
}

export interface WorkflowEdge {
  id: string;
  source: string;
  target: string;
  label?: string;
  /** An imported graph's conditional edge (its routing function chooses it). */
  conditional?: boolean;
}

/** Where a workflow made from an imported repository's graph came from (decision 0028). */
export interface ImportedGraphInfo {
  job_id: string;
  graph_id: string;
  spec: string;
  env_names: string[];
  context_schema: unknown | null;
}

/** The document the editor writes and the engine runs (backend: schemas/workflow.schema.ts). */
export interface WorkflowDocument {
  name: string;
  description?: string;
  state: StateField[];
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  /** Set on a workflow made from an imported graph: it is read-only in the editor. */
  imported?: ImportedGraphInfo;
}

/** The server's limit on a workflow's name (workflowDocument.name: 1–200 after trimming). */
export const WORKFLOW_NAME_MAX = 200;

export interface WorkflowSummary {
  id: string;
  name: string;
  description: string | null;
  version: number;
  content_hash: string;
  created_at: string;
  updated_at: string;
}

export interface Workflow extends WorkflowSummary {
  document: WorkflowDocument;
}

export interface SaveResult {
  workflow: Workflow;
  createdVersion: boolean;
}

export interface VersionSummary {
  number: number;
  content_hash: string;
  author_id: string;
  /** The author's name and email as their account has them now (null: no name, or the account is gone). */
  author_name: string | null;
  author_email: string | null;
  created_at: string;
  restored_from: number | null;
}

export interface Version extends VersionSummary {
  document: WorkflowDocument;
}

/** A repository import job as GET /api/imports/:id answers it: the server's own schema. */
export type ImportJob = z.infer<typeof importJobView>;
/** A graph's inspection: null (not checked yet), what loaded, or why it did not. */
export type GraphInspection = ImportJob["graphs"][number]["inspected"];
/** Why a graph could not be loaded when the check step inspected it. */
export type GraphInspectionError = Extract<NonNullable<GraphInspection>, { ok: false }>;
export type ImportGraph = ImportJob["graphs"][number];
export type ImportStepName = ImportJob["step"];
export type ImportStepStatus = ImportJob["steps"][number]["status"];
export type { GithubImportBody };

export interface Page<T> {
  items: T[];
  nextOffset: number | null;
}

type SessionEndedListener = (error: ApiError) => void;
let onSessionEnded: SessionEndedListener | null = null;

/** Who is told when a signed-in call finds the session over (the router, to go to login). */
export function setSessionEndedListener(listener: SessionEndedListener | null): void {
  onSessionEnded = listener;
}

/** For channels other than fetch (the run socket): the server ended the session. */
export function reportSessionEnded(code = "AUTH_TOKEN_EXPIRED"): void {
  const error = new ApiError(code, 401, "session ended", null);
  clearSession();
  onSessionEnded?.(error);
}

interface RequestOptions {
  method?: "GET" | "POST" | "PUT" | "DELETE";
  body?: unknown;
  /** A multipart body (a file upload), sent as is: the browser writes its content type and boundary. */
  form?: FormData;
  headers?: Record<string, string>;
  /** false for the public routes (status, setup, login): no token, and a 401 is not a session end. */
  auth?: boolean;
  signal?: AbortSignal;
}

interface Envelope<T> {
  data: T;
  meta?: Record<string, unknown>;
  pagination?: { limit: number; offset: number; next_offset: number | null };
}

async function send<T>(path: string, options: RequestOptions = {}): Promise<Envelope<T>> {
  const { method = "GET", body, form, auth = true, signal } = options;
  const headers: Record<string, string> = { accept: "application/json", ...options.headers };
  const token = auth ? getSession()?.token : undefined;
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: form ?? (body === undefined ? undefined : JSON.stringify(body)),
      signal,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError("NETWORK", 0, error instanceof Error ? error.message : String(error), null);
  }
  const parsed = (await response.json().catch(() => null)) as
    | Envelope<T>
    | { error: { code: string; message: string; details: unknown } }
    | null;
  if (!response.ok || !parsed || !("data" in parsed)) {
    const error =
      parsed && "error" in parsed
        ? parsed.error
        : { code: response.status >= 500 ? "INTERNAL" : "NETWORK", message: response.statusText, details: null };
    const apiError = new ApiError(error.code, response.status, error.message, error.details);
    if (auth && isSessionEnded(apiError)) {
      clearSession();
      onSessionEnded?.(apiError);
    }
    throw apiError;
  }
  return parsed;
}

async function request<T>(path: string, options?: RequestOptions): Promise<T> {
  return (await send<T>(path, options)).data;
}

async function page<T>(path: string, limit: number, offset: number): Promise<Page<T>> {
  const separator = path.includes("?") ? "&" : "?";
  const envelope = await send<T[]>(`${path}${separator}limit=${limit}&offset=${offset}`);
  return { items: envelope.data, nextOffset: envelope.pagination?.next_offset ?? null };
}

/** Every item of a paginated list from `from` on, page after page (the server gives at most 200 at a time). */
async function all<T>(path: string, from = 0): Promise<T[]> {
  const items: T[] = [];
  let offset: number | null = from;
  while (offset !== null) {
    const next: Page<T> = await page<T>(path, 200, offset);
    items.push(...next.items);
    offset = next.nextOffset;
  }
  return items;
}

async function save(path: string, options: RequestOptions): Promise<SaveResult> {
  const envelope = await send<Workflow>(path, options);
  return { workflow: envelope.data, createdVersion: envelope.meta?.created_version === true };
}

const id = (value: string) => encodeURIComponent(value);

export const api = {
  health: () => request<Health>("/api/health", { auth: false }),

  authStatus: () => request<AuthStatus>("/api/auth/status", { auth: false }),
  setup: (body: SetupBody) => request<Session>("/api/auth/setup", { method: "POST", body, auth: false }),
  login: (body: Credentials) => request<Session>("/api/auth/login", { method: "POST", body, auth: false }),
  me: () => request<SessionUser>("/api/auth/me"),

  listWorkflows: () => all<WorkflowSummary>("/api/workflows"),
  getWorkflow: (workflowId: string) => request<Workflow>(`/api/workflows/${id(workflowId)}`),
  createWorkflow: (document: WorkflowDocument) =>
    request<Workflow>("/api/workflows", { method: "POST", body: document }),
  /** Saves a document; with `ifVersion`, refused (WORKFLOW_VERSION_CONFLICT) if someone saved since. */
  saveWorkflow: (workflowId: string, document: WorkflowDocument, ifVersion?: number) =>
    save(`/api/workflows/${id(workflowId)}`, {
      method: "PUT",
      body: document,
      headers: ifVersion === undefined ? {} : { "if-match": `"${ifVersion}"` },
    }),
  deleteWorkflow: (workflowId: string) =>
    request<{ id: string; deleted: true }>(`/api/workflows/${id(workflowId)}`, { method: "DELETE" }),
  validateWorkflow: (document: unknown, workflowId?: string) =>
    request<{ valid: true }>(
      `/api/workflows/validate${workflowId ? `?workflow_id=${encodeURIComponent(workflowId)}` : ""}`,
      { method: "POST", body: document },
    ),

  listVersions: (workflowId: string, limit = 50, offset = 0) =>
    page<VersionSummary>(`/api/workflows/${id(workflowId)}/versions`, limit, offset),
  getVersion: (workflowId: string, number: number) =>
    request<Version>(`/api/workflows/${id(workflowId)}/versions/${number}`),
  restoreVersion: (workflowId: string, number: number) =>
    save(`/api/workflows/${id(workflowId)}/versions/${number}/restore`, { method: "POST" }),

  getRun: <T>(runId: string) => request<T>(`/api/runs/${id(runId)}`),
  /** A page of runs, newest first, with the runs page's filters as query parameters. */
  listRuns: <T>(query: string, limit: number, offset: number) => page<T>(`/api/runs?${query}`, limit, offset),
  nodeStats: <T>(workflowId: string, runs: number) =>
    request<T>(`/api/workflows/${id(workflowId)}/node-stats?runs=${runs}`),
  compareRuns: <T>(a: string, b: string) => request<T>(`/api/runs/compare?a=${id(a)}&b=${id(b)}`),
  cancelRun: (runId: string) => request<unknown>(`/api/runs/${id(runId)}/cancel`, { method: "POST" }),
  runEvents: <T>(runId: string, after: number, limit: number) =>
    request<T[]>(`/api/runs/${id(runId)}/events?after=${after}&limit=${limit}`),
  /** A run's supersteps with their checkpoints and the state after each (typed where read: the run panel). */
  /** A run's supersteps from the `from`-th checkpointed one on (earlier ones never change). */
  runSteps: <T>(runId: string, from = 0) => all<T>(`/api/runs/${id(runId)}/steps`, from),
  forkPreview: <T>(runId: string, body: object) =>
    request<T>(`/api/runs/${id(runId)}/fork/preview`, { method: "POST", body }),
  forkRun: <T>(runId: string, body: object) => request<T>(`/api/runs/${id(runId)}/fork`, { method: "POST", body }),
  /** Runs one node alone on a state (nothing is written to any run). */
  runNode: <T>(body: object) => request<T>("/api/node-runs", { method: "POST", body }),

  listApiKeys: <T>() => all<T>("/api/api-keys"),
  createApiKey: <T>(name: string) => request<T>("/api/api-keys", { method: "POST", body: { name } }),
  revokeApiKey: (keyId: string) => request<unknown>(`/api/api-keys/${id(keyId)}`, { method: "DELETE" }),
  listSchedules: <T>(workflowId: string) => request<T>(`/api/workflows/${id(workflowId)}/schedules`),
  createSchedule: <T>(workflowId: string, body: object) =>
    request<T>(`/api/workflows/${id(workflowId)}/schedules`, { method: "POST", body }),
  updateSchedule: <T>(workflowId: string, scheduleId: string, body: object) =>
    request<T>(`/api/workflows/${id(workflowId)}/schedules/${id(scheduleId)}`, { method: "PUT", body }),
  deleteSchedule: (workflowId: string, scheduleId: string) =>
    request<unknown>(`/api/workflows/${id(workflowId)}/schedules/${id(scheduleId)}`, { method: "DELETE" }),
  previewSchedule: (cron: string, timezone: string) =>
    request<{ next: string[] }>("/api/schedules/preview", { method: "POST", body: { cron, timezone } }),

  listImports: () => request<ImportJob[]>("/api/imports"),
  getImport: (jobId: string) => request<ImportJob>(`/api/imports/${id(jobId)}`),
  importFromGithub: (body: GithubImportBody) => request<ImportJob>("/api/imports", { method: "POST", body }),
  /** Uploads a zip in the field `file`, streamed by the browser (never read into the page). */
  importFromZip: (file: File) => {
    const form = new FormData();
    form.append("file", file, file.name);
    return request<ImportJob>("/api/imports", { method: "POST", form });
  },

  /** Makes a workflow from a graph of a finished import (the job is then kept). */
  createWorkflowFromImport: (jobId: string, body: { graph_id: string; name?: string }) =>
    request<Workflow>(`/api/imports/${id(jobId)}/workflows`, { method: "POST", body }),

  /** Every node type with the JSON Schema of its settings (typed where it is read: the inspector). */
  nodeTypes: () => request<unknown[]>("/api/node-types"),
};
