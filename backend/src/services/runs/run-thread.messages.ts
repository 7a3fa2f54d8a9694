// What the thread that answers requests and the run thread say to each other (structured clones:
// plain data only; errors travel as their name, message, code and stack).
import type { BackgroundTask } from "../background-monitor.js";

export type ToRunThread =
  /** `turn`: this hand-over's id, which its `done` names (a run can be handed over twice at once). */
  | { type: "execute"; runId: string; turn: number }
  | { type: "abort"; runId: string }
  | { type: "stop" }
  | { type: "close" };

export type FromRunThread =
  /**
   * Events now on disk, in order, for the run bus: as JSON text, so that what listeners get is
   * exactly what a reader of the stored events gets. `runIds`: the runs they belong to (read
   * only when someone follows one of them: the others' events are on disk for a later reader).
   */
  | { type: "events"; runIds: string[]; json: string }
  /** A turn ended (`error`: it threw). */
  | { type: "done"; runId: string; turn: number; error?: ErrorData }
  /** A run with a callback URL reached a final status. */
  | { type: "ended"; runId: string }
  /** A background failure, for the process's monitor (logged and counted there). */
  | { type: "failed"; task: BackgroundTask; message: string; error: ErrorData; fields: Record<string, unknown> }
  /** The thread's executor and database connection are set up: it takes turns from now on. */
  | { type: "ready" }
  /** Everything released; the thread is about to end. */
  | { type: "closed" };

export interface ErrorData {
  name: string;
  message: string;
  code?: string;
  stack?: string;
}

export function errorData(error: unknown): ErrorData {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    message: error.message,
    ...(typeof code === "string" ? { code } : {}),
    ...(error.stack ? { stack: error.stack } : {}),
  };
}

export function revivedError(data: ErrorData): Error {
  const error = new Error(data.message) as Error & { code?: string };
  error.name = data.name;
  if (data.code !== undefined) error.code = data.code;
  if (data.stack !== undefined) error.stack = data.stack;
  return error;
}
