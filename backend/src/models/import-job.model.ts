// The shape of an import job as it is stored (job.json, not a table) and shown. Steps are fixed so
// that the dialog can show all of them from the start: download → install → check → ready.
import type { ErrorCode } from "../core/errors.js";

/** How the install step installs the project (the same names as engine/repo_import's discovery). */
export type ImportProjectKind = "pyproject" | "setup.py" | "requirements" | "none";

export const IMPORT_STEPS = ["download", "install", "check", "ready"] as const;
export type ImportStepName = (typeof IMPORT_STEPS)[number];
export type ImportStepStatus = "pending" | "running" | "done" | "failed" | "skipped";
export type ImportJobStatus = "running" | "succeeded" | "failed" | "interrupted";

/** A graph's check result (the job's `inspected`): its one definition is the API's schema. */
import type { GraphInspection } from "../schemas/import.schema.js";

export type { GraphInspection };

export type ImportSourceView =
  | { kind: "github"; url: string; branch: string | null; subdir: string | null }
  | { kind: "zip"; file_name: string; bytes: number };

export interface ImportJob {
  id: string;
  owner_id: string;
  source: ImportSourceView;
  status: ImportJobStatus;
  /** The step running now, or the last one that ran. */
  step: ImportStepName;
  steps: { name: ImportStepName; status: ImportStepStatus; started_at: string | null; finished_at: string | null }[];
  logs: { ts: string; step: ImportStepName; line: string }[];
  graphs: {
    id: string;
    spec: string;
    file: string | null;
    module: string | null;
    variable: string;
    line: number | null;
    origin: "langgraph.json" | "scan";
    inspected: GraphInspection;
  }[];
  env_names: string[];
  project: { kind: ImportProjectKind; files: string[] } | null;
  /** Where the project is, relative to the job directory (`src`, or a sub-directory of it); null before download. */
  source_root: string | null;
  /** Bytes of the source on disk, .git not counted. */
  source_bytes: number | null;
  error: { code: ErrorCode; message: string; details: unknown } | null;
  created_at: string;
  updated_at: string;
  /** The process that runs the job: a job whose process is gone is marked interrupted at start. */
  pid: number;
  /** Set once a workflow is created from the job: its directory is never cleaned. */
  keep: boolean;
}

/** A job as it starts, in this process: the download step next, every step pending. */
export function newImportJob(id: string, ownerId: string, source: ImportSourceView): ImportJob {
  const now = new Date().toISOString();
  return {
    id,
    owner_id: ownerId,
    source,
    status: "running",
    step: "download",
    steps: IMPORT_STEPS.map((name) => ({ name, status: "pending", started_at: null, finished_at: null })),
    logs: [],
    graphs: [],
    env_names: [],
    project: null,
    source_root: null,
    source_bytes: null,
    error: null,
    created_at: now,
    updated_at: now,
    pid: process.pid,
    keep: false,
  };
}

/** Only so many log lines are kept per job; the last line says how many were dropped. */
export const MAX_LOG_LINES = 2000;
