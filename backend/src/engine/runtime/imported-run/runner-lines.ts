// What runner.py's `run` prints (docs/en/import-runner.md), turned into the studio's node events
// the way a workflow run reports them. Pure: the process, the sandbox and the checkpointer are
// imported-run.ts's; this only reads lines and remembers how the run ended.
import { AppError } from "../../../core/errors.js";
import type { HumanRequest } from "../../nodes/human-form.js";
import type { EventError, NodeEvent } from "../events.js";
import { truncateForEvent } from "../limits.js";

/** One JSON line of the runner, as far as the server reads it. */
export interface RunnerLine {
  type: string;
  [field: string]: unknown;
}

/** How the runner's lines ended the run (null until a final line came). */
export type RunnerEnding =
  | { kind: "finished"; state: Record<string, unknown> }
  | { kind: "waiting"; request: HumanRequest; state: Record<string, unknown> }
  | { kind: "failed"; error: EventError; nodeId: string | null };

/** A checkpoint line's blob, or why there is none. */
export type RunnerCheckpoint =
  | { kind: "blob"; superstep: number; blob: unknown }
  | { kind: "unavailable"; reason: string };

/** The one field a waiting imported run asks for: the answer to the graph's interrupt(). */
export const ANSWER_FIELD = { name: "answer", type: "text", label: "Answer", required: true } as const;

/** Parses a stdout line; null for anything that is not a JSON object with a type. */
export function parseRunnerLine(text: string): RunnerLine | null {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value) && typeof (value as RunnerLine).type === "string")
      return value as RunnerLine;
  } catch {
    // Not the protocol (the runner keeps stdout for its lines; anything else is ignored).
  }
  return null;
}

/** A graph's node id made into a workflow node id when the document has no node for it. */
export function safeNodeId(graphNodeId: string): string {
  const safe = graphNodeId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
  return safe === "" ? "node" : safe;
}

/** The interrupt value as a person reads it: a string as it is, anything else as JSON. */
export function readableValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const { message, question, prompt } = value as Record<string, unknown>;
    for (const text of [message, question, prompt]) if (typeof text === "string" && text !== "") return text;
  }
  return JSON.stringify(value, null, 2) ?? "null";
}

/** A person's `{answer}` as the graph's resume value: JSON when it parses, else the text. */
export function resumeValueOf(input: unknown): unknown {
  const answer = input && typeof input === "object" ? (input as Record<string, unknown>).answer : input;
  if (typeof answer !== "string") return answer ?? null;
  try {
    return JSON.parse(answer) as unknown;
  } catch {
    return answer;
  }
}

function text(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

function names(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((name): name is string => typeof name === "string") : [];
}

function object(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The run error of a runner `error` line: the catalog code by phase and kind. */
export function runnerError(line: RunnerLine): EventError {
  const phase = text(line.phase) ?? "runner";
  const kind = text(line.kind);
  const location = line.location ?? null;
  const variables = names(line.variables);
  const missing = names(line.missing_env);
  const message = text(line.message) ?? "the graph failed";
  const errorType = text(line.error_type);
  if (kind === "missing_env" && (phase === "load" || phase === "run")) {
    // The variable the graph failed on first, then every other one the repository declares
    // (.env.example) that is not set: the person sees all the keys to provide at once.
    const found = [...new Set([...variables, ...missing])];
    const error = new AppError(
      "IMPORTED_ENV_MISSING",
      { names: found, error_type: errorType, message, location },
      found.length > 0
        ? `The imported graph needs environment variables that are not set: ${found.join(", ")}.`
        : undefined,
    );
    return { code: error.code, message: error.message, details: error.details };
  }
  if (phase === "load") {
    const error = new AppError(
      "IMPORTED_GRAPH_LOAD_FAILED",
      { kind, stage: line.stage ?? null, error_type: errorType, message, location, missing_env: missing },
      `The imported graph could not be loaded: ${message}`,
    );
    return { code: error.code, message: error.message, details: error.details };
  }
  const error = new AppError(
    "IMPORTED_GRAPH_FAILED",
    { phase, error_type: errorType, message, location, missing_env: missing },
    `The imported graph failed: ${errorType ? `${errorType}: ` : ""}${message}`,
  );
  return { code: error.code, message: error.message, details: error.details };
}

export interface LineMapperOptions {
  /** The graph's node ids (runner ids) → the workflow's node ids (from `data.imported.node`). */
  nodeIds: ReadonlyMap<string, string>;
  maxEventBytes: number;
}

/**
 * Reads the runner's lines in order: `events` are the studio events a line stands for,
 * `checkpoint` what to keep, and `ending` how the run ended once a final line came.
 */
export class RunnerLineMapper {
  readonly #options: LineMapperOptions;
  readonly #started = new Map<string, { at: number; nodeId: string; iteration: string }>();
  readonly #visits = new Map<string, number>();
  #ending: RunnerEnding | null = null;
  #lastFailed: string | null = null;
  #lastInterrupted: string | null = null;

  constructor(options: LineMapperOptions) {
    this.#options = options;
  }

  get ending(): RunnerEnding | null {
    return this.#ending;
  }

  nodeId(graphNodeId: string): string {
    return this.#options.nodeIds.get(graphNodeId) ?? safeNodeId(graphNodeId);
  }

  read(line: RunnerLine, now = performance.now()): { events: NodeEvent[]; checkpoint?: RunnerCheckpoint } {
    const superstep = typeof line.superstep === "number" ? line.superstep : undefined;
    switch (line.type) {
      case "node_started": {
        const nodeId = this.nodeId(String(line.node));
        const visits = this.#visits.get(nodeId) ?? 0;
        this.#visits.set(nodeId, visits + 1);
        const iteration = String(visits);
        this.#started.set(String(line.task_id), { at: now, nodeId, iteration });
        return {
          events: [
            {
              type: "node_started",
              node_id: nodeId,
              superstep,
              data: {
                node_type: "code",
                iteration,
                input: truncateForEvent(line.input ?? null, this.#options.maxEventBytes),
              },
            },
          ],
        };
      }
      case "node_finished": {
        const started = this.#started.get(String(line.task_id));
        this.#started.delete(String(line.task_id));
        const nodeId = started?.nodeId ?? this.nodeId(String(line.node));
        if (line.status === "interrupted") {
          // Waiting for a person: the node has not finished (it runs again with the answer).
          this.#lastInterrupted = nodeId;
          return { events: [] };
        }
        if (line.status === "error") {
          this.#lastFailed = nodeId;
          return { events: [] };
        }
        return {
          events: [
            {
              type: "node_finished",
              node_id: nodeId,
              superstep,
              data: {
                output: truncateForEvent(line.output ?? null, this.#options.maxEventBytes),
                duration_ms: started ? Math.round(now - started.at) : 0,
                reused: false,
                iteration: started?.iteration ?? "0",
              },
            },
          ],
        };
      }
      case "checkpoint":
        return { events: [], checkpoint: { kind: "blob", superstep: superstep ?? 0, blob: line.checkpoint } };
      case "checkpoint_unavailable":
        return { events: [], checkpoint: { kind: "unavailable", reason: text(line.reason) ?? "unavailable" } };
      case "run_finished":
        this.#ending = { kind: "finished", state: object(line.state) };
        return { events: [] };
      case "waiting": {
        const interrupts = Array.isArray(line.interrupts) ? (line.interrupts as { value?: unknown }[]) : [];
        const next = names(line.next);
        const nodeId = this.#lastInterrupted ?? (next[0] ? this.nodeId(next[0]) : "start");
        const value = interrupts.length === 1 ? interrupts[0]?.value : interrupts.map((i) => i?.value);
        this.#ending = {
          kind: "waiting",
          state: object(line.state),
          request: { node_id: nodeId, message: readableValue(value), fields: [ANSWER_FIELD], timeout_seconds: null },
        };
        return { events: [] };
      }
      case "error": {
        const error = runnerError(line);
        this.#ending = { kind: "failed", error, nodeId: line.phase === "run" ? this.#lastFailed : null };
        return {
          events: [
            { type: "error", ...(this.#ending.nodeId ? { node_id: this.#ending.nodeId } : {}), data: { error } },
          ],
        };
      }
      default:
        return { events: [] };
    }
  }
}
