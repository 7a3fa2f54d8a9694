// Runs a workflow made from an imported LangGraph repository: its own Python code, through
// `runner.py run` in the import sandbox, with the runner's lines turned into the same studio events
// and ending a workflow run has (decision 0028). A resumed turn (after a crash or takeover, or with
// a person's answer) starts a new sandbox from the newest checkpoint the runner shipped.
import { randomUUID } from "node:crypto";
import { access, lstat, mkdir, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph-checkpoint";
import { AppError } from "../../../core/errors.js";
import { LinkedAbort } from "../../../core/linked-abort.js";
import type { ImportedGraph, WorkflowDocument } from "../../../schemas/workflow.schema.js";
import { createImportSandbox } from "../../sandbox/container/import-sandbox-factory.js";
import { passedVariables, sandboxEnvironment } from "../../sandbox/container/sandbox-env.js";
import { type ImportSandbox, type SandboxResult, stopReason } from "../../sandbox/import-sandbox.js";
import { EventStamper } from "../event-stamper.js";
import type { EventError, NodeEvent, StudioEvent } from "../events.js";
import { toEventError } from "../node-failure.js";
import type { RunOptions, RunOutcome } from "../run-options.js";
import { SecretRedactor } from "../secret-redactor.js";
import { testPauseFor } from "../test-pause.js";
import { ImportedCheckpoints } from "./imported-checkpoints.js";
import { importedGraphOf } from "./imported-graph.js";
import type { ImportedSource } from "./imported-run-setup.js";
import { parseRunnerLine, type RunnerLine, RunnerLineMapper, resumeValueOf } from "./runner-lines.js";

export { importedGraphOf };

const ENV_FILES = [".env.example", ".env.template", ".env.sample"];
// Only the end of a runner's stderr is kept for an error that has no line of its own.
const STDERR_TAIL = 20;

/** The runner's node ids → the workflow's node ids (`data.imported.node`). */
export function nodeIdMap(document: WorkflowDocument): Map<string, string> {
  const map = new Map<string, string>();
  for (const node of document.nodes) {
    const imported = (node.data as { imported?: { node?: unknown } }).imported;
    if (typeof imported?.node === "string") map.set(imported.node, node.id);
  }
  return map;
}

/** The run's context goes to the graph as `__context__` in its input (the runner takes it out). */
function withContext(input: unknown, context: Record<string, unknown> | undefined): unknown {
  const given = input && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  if (!context || Object.keys(context).length === 0 || Object.hasOwn(given, "__context__")) return input ?? {};
  return { ...given, __context__: context };
}

/**
 * A new directory for this turn's files, `<job>/runs/<run id>-<n>`. The job directory is the
 * sandbox's too: `runs` is taken only as a real directory (a link planted there is removed), and
 * the turn's directory and files are created new, never written through something already there.
 */
async function turnDirectory(jobDir: string, runId: string): Promise<string> {
  const runs = join(jobDir, "runs");
  const info = await lstat(runs).catch(() => null);
  if (info && !info.isDirectory()) await rm(runs, { force: true });
  await mkdir(runs, { recursive: true });
  const dir = join(runs, `${runId}-${randomUUID().slice(0, 8)}`);
  await mkdir(dir);
  return dir;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** A simple ordered queue of lines between the sandbox's callbacks and the generator. */
class LineQueue {
  readonly #lines: RunnerLine[] = [];
  #wake: (() => void) | null = null;
  #closed = false;

  push(line: RunnerLine): void {
    this.#lines.push(line);
    this.#wake?.();
  }

  get closed(): boolean {
    return this.#closed;
  }

  close(): void {
    this.#closed = true;
    this.#wake?.();
  }

  async *drain(): AsyncGenerator<RunnerLine> {
    for (;;) {
      const line = this.#lines.shift();
      if (line) {
        yield line;
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = null;
    }
  }
}

/**
 * Runs (or resumes) an imported workflow and yields its events; the return value is the outcome,
 * as runStream's. `document` is already parsed and has `imported`.
 */
export async function* runImported(
  document: WorkflowDocument & { imported: ImportedGraph },
  input: unknown,
  options: RunOptions,
): AsyncGenerator<StudioEvent, RunOutcome> {
  // The sandbox's own signal: the run's (cancel, lease lost), or this call ending early.
  const stop = new LinkedAbort([options.signal]);
  try {
    return yield* importedTurn(document, input, options, stop);
  } finally {
    stop.dispose();
  }
}

async function* importedTurn(
  document: WorkflowDocument & { imported: ImportedGraph },
  input: unknown,
  options: RunOptions,
  stop: LinkedAbort,
): AsyncGenerator<StudioEvent, RunOutcome> {
  const setup = options.imports;
  if (!setup)
    throw new AppError("IMPORT_SANDBOX_UNAVAILABLE", { reason: "imported workflows run only on a server with import" });
  const imported = document.imported;
  const runId = options.runId ?? randomUUID();
  const saver: BaseCheckpointSaver = options.checkpointer ?? new MemorySaver();
  const checkpoints = new ImportedCheckpoints(saver, runId);
  const timeoutMs = Math.min(options.timeoutMs ?? setup.config.runTimeoutMs, setup.config.runTimeoutMs);
  const { signal } = stop;
  const testPause = testPauseFor(options.engine, runId, signal);
  const checkpointer = testPause ? testPause.watch(saver) : saver;
  const stored = new ImportedCheckpoints(checkpointer, runId);
  const resuming = options.resume !== undefined;

  // The values the sandbox is given (declared keys, STUDIO_IMPORT_SECRETS) never reach events or the state.
  const serverEnv = setup.serverEnv ?? process.env;
  const envInput = { declared: imported.env_names, secrets: setup.config.secrets, serverEnv };
  const redactor = new SecretRedactor(Object.values(passedVariables(envInput)));
  const events = new EventStamper(runId, redactor, options);
  const stamp = (event: NodeEvent) => events.stamp(event);
  const ended = async function* (
    status: "error" | "cancelled",
    error: EventError,
    state: Record<string, unknown>,
    reported = false,
  ): AsyncGenerator<StudioEvent, RunOutcome> {
    // The run's recorded error is scrubbed like its events (a graph's message or stderr may hold a key).
    error = redactor.value(error);
    if (!reported) yield await stamp({ type: "error", data: { error } });
    yield await stamp({ type: "run_finished", data: { status, error, state } });
    return { runId, status, state, output: state, error, supersteps: events.supersteps, nextSeq: events.seq };
  };

  yield await stamp({ type: "run_started", data: { mode: "full", resumed: resuming, attempt: options.attempt ?? 1 } });

  // What this turn starts from: the newest checkpoint the runner shipped, when resuming.
  const previous = resuming ? await checkpoints.latest() : null;
  const fromBlob = previous && previous.runner !== null ? previous : null;
  // The run's own input, kept with every checkpoint: a resume without a runner state starts over.
  const originalInput = resuming ? (previous?.input ?? {}) : withContext(input, options.context);
  const runInput = fromBlob ? null : originalInput;

  let source: ImportedSource;
  try {
    source = await setup.sourceOf(imported.job_id);
  } catch (error) {
    return yield* ended("error", toEventError(error), {});
  }
  let sandbox: ImportSandbox;
  try {
    sandbox = setup.sandbox ?? createImportSandbox(setup.config);
  } catch (error) {
    return yield* ended("error", toEventError(error), {});
  }
  const paths = sandbox.paths(source.jobDir);
  const inSandbox = (hostPath: string) => join(paths.job, relative(source.jobDir, hostPath));
  const runDir = await turnDirectory(source.jobDir, runId);
  const argv = [
    join(paths.job, "venv", "bin", "python"),
    paths.runner,
    "run",
    "--root",
    inSandbox(source.root),
    "--graph",
    `${imported.graph_id}=${imported.spec}`,
    "--thread-id",
    runId,
  ];
  await writeFile(join(runDir, "input.json"), JSON.stringify(runInput ?? null), { flag: "wx" });
  argv.push("--input", `@${inSandbox(join(runDir, "input.json"))}`);
  if (fromBlob) {
    await writeFile(join(runDir, "checkpoint.json"), JSON.stringify(fromBlob.runner), { flag: "wx" });
    argv.push("--checkpoint", inSandbox(join(runDir, "checkpoint.json")));
    if (options.resume?.kind === "human") {
      await writeFile(join(runDir, "resume.json"), JSON.stringify(resumeValueOf(options.resume.input)), {
        flag: "wx",
      });
      argv.push("--resume", `@${inSandbox(join(runDir, "resume.json"))}`);
    }
  }
  for (const name of ENV_FILES) {
    if (await exists(join(source.root, name))) {
      argv.push("--env-example", inSandbox(join(source.root, name)));
      break;
    }
  }

  const mapper = new RunnerLineMapper({ nodeIds: nodeIdMap(document), maxEventBytes: options.engine.maxEventBytes });
  const queue = new LineQueue();
  const stderr: string[] = [];
  const execution: Promise<SandboxResult | { failed: unknown }> = sandbox
    .exec({
      phase: "run",
      jobDir: source.jobDir,
      argv,
      env: sandboxEnvironment({ paths, ...envInput }),
      timeoutMs,
      signal,
      onStdoutLine: (text) => {
        const line = parseRunnerLine(text);
        if (line) queue.push(line);
      },
      onStderrLine: (text) => {
        stderr.push(text);
        if (stderr.length > STDERR_TAIL) stderr.shift();
      },
    })
    .catch((failed: unknown) => ({ failed }))
    .finally(() => queue.close());

  let lastStep = previous && previous.runner !== null ? previous.superstep : -1;
  let state: Record<string, unknown> = {};
  try {
    for await (const line of queue.drain()) {
      const { events, checkpoint } = mapper.read(line);
      // A checkpoint is on disk before anything after it is reported (as a workflow run's is).
      if (checkpoint?.kind === "blob") {
        lastStep = Math.max(lastStep + 1, checkpoint.superstep);
        await stored.save({ runner: checkpoint.blob, superstep: checkpoint.superstep, input: originalInput }, lastStep);
      } else if (checkpoint?.kind === "unavailable") {
        lastStep += 1;
        await stored.save({ runner: null, unavailable: checkpoint.reason, input: originalInput }, lastStep);
      }
      for (const event of events) {
        // The final error is reported below, with the ending.
        if (event.type === "error") continue;
        yield await stamp(event);
        if (event.type === "node_finished" && event.node_id) testPause?.nodeFinished(event.node_id, event.node_id);
      }
    }
  } finally {
    // A reader that stops early (or a checkpoint the lease refused) stops the sandbox too.
    if (!queue.closed) stop.abort(new DOMException("The run stopped", "AbortError"));
    await execution;
    await rm(runDir, { recursive: true, force: true }).catch(() => undefined);
  }
  const result = await execution;
  const ending = mapper.ending;
  if ("failed" in result) return yield* ended("error", toEventError(result.failed), state);
  if (result.aborted && options.signal?.aborted && !result.timedOut)
    return yield* ended("cancelled", toEventError(new AppError("RUN_CANCELLED")), state);
  const stopped = stopReason(result, timeoutMs);
  if (stopped && ending?.kind !== "finished" && ending?.kind !== "waiting") {
    const error = toEventError(
      new AppError(
        "SANDBOX_STOPPED",
        { reason: result.timedOut ? "time_limit" : "exit_137", exit_code: result.exitCode },
        stopped,
      ),
    );
    return yield* ended("error", error, state);
  }
  if (!ending) {
    const error = toEventError(
      new AppError(
        "IMPORTED_GRAPH_FAILED",
        { exit_code: result.exitCode, stderr: stderr.slice(-STDERR_TAIL) },
        `The imported graph's runner ended (exit code ${result.exitCode}) without a result.`,
      ),
    );
    return yield* ended("error", error, state);
  }
  if (ending.kind === "failed") {
    yield await stamp({
      type: "error",
      ...(ending.nodeId ? { node_id: ending.nodeId } : {}),
      data: { error: ending.error },
    });
    return yield* ended("error", ending.error, state, true);
  }
  state = redactor.value(ending.state);
  if (ending.kind === "waiting") {
    const waiting = redactor.value({ ...ending.request, expires_at: null });
    yield await stamp({ type: "run_waiting", node_id: waiting.node_id, data: { ...waiting } });
    return {
      runId,
      status: "waiting",
      state,
      output: state,
      waiting,
      supersteps: events.supersteps,
      nextSeq: events.seq,
    };
  }
  yield await stamp({ type: "run_finished", data: { status: "ok", output: state, state } });
  return { runId, status: "ok", state, output: state, supersteps: events.supersteps, nextSeq: events.seq };
}
