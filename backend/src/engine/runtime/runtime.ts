// runStream: validates a workflow, compiles it, streams it through LangGraph and turns what
// happens into studio events. A run is a LangGraph thread (thread_id = run id); with a durable
// checkpointer it can be continued, resumed after a Human node, or picked up after a crash.
import { randomUUID } from "node:crypto";
import { Command, GraphRecursionError, InvalidUpdateError, MemorySaver } from "@langchain/langgraph";
import { AppError } from "../../core/errors.js";
import { LinkedAbort } from "../../core/linked-abort.js";
import { workflowDocument } from "../../schemas/workflow.schema.js";
import { type CompiledGraph, compileWorkflow, initialHiddenState, withCheckpointer } from "../compiler/compiler.js";
import { replaceDefaults, visibleState } from "../compiler/state-channels.js";
import type { HumanRequest } from "../nodes/human.node.js";
import { endRunSandboxScopes } from "../nodes/sandbox-scope.js";
import type { ValidatedWorkflow } from "../validator/validator.js";
import { EventStamper } from "./event-stamper.js";
import type { EventError, NodeEvent, RunStatus, StudioEvent } from "./events.js";
import { importedGraphOf, runImported } from "./imported-run/imported-run.js";
import { useLightRunContext } from "./light-run-context.js";
import { jsonBytes } from "./limits.js";
import { NodeFailure, toEventError } from "./node-failure.js";
import { MemoryResultLedger } from "./ports.js";
import { prepareWorkflow } from "./prepare-workflow.js";
import { asNodeEvent, type RunContext } from "./run-context.js";
import { memoized, openRunCredentials } from "./run-credentials.js";
import { checkRunInput } from "./run-input.js";
import type { RunOptions, RunOutcome } from "./run-options.js";
import { StoredDocument } from "./stored-document.js";
import { testPauseFor } from "./test-pause.js";

// Validation needs no LangGraph: services that only validate import prepare-workflow.js directly.
export { prepareWorkflow, validationEnvironment } from "./prepare-workflow.js";
export type { RunOptions, RunOutcome } from "./run-options.js";

// Every run of a workflow through LangGraph, in whatever thread loads this module.
useLightRunContext();

function outputOf(workflow: ValidatedWorkflow, state: Record<string, unknown>): Record<string, unknown> {
  const end = workflow.nodes.get(workflow.model.endId);
  const selection = end?.type === "end" ? end.data.outputs : undefined;
  if (!selection) return state;
  return Object.fromEntries(selection.map((field) => [field, state[field] ?? null]));
}

/**
 * The wait a run is in, when its Human node's timeout has passed: measured from the checkpoint
 * written when the run started waiting.
 */
export async function expiredWait(
  graph: CompiledGraph,
  threadConfig: { configurable: { thread_id: string } },
  now = Date.now(),
): Promise<{ node_id: string; expires_at: string; values: Record<string, unknown> } | null> {
  const snapshot = await graph.getState(threadConfig);
  const request = snapshot.tasks.flatMap((task) => task.interrupts ?? [])[0]?.value as HumanRequest | undefined;
  if (!request?.timeout_seconds || !snapshot.createdAt) return null;
  const expiresAt = Date.parse(snapshot.createdAt) + request.timeout_seconds * 1000;
  if (now < expiresAt) return null;
  return {
    node_id: request.node_id,
    expires_at: new Date(expiresAt).toISOString(),
    values: (snapshot.values ?? {}) as Record<string, unknown>,
  };
}

/** A classified ending for an error thrown out of the graph. */
function classify(
  error: unknown,
  signals: { timeout: AbortSignal; state: AbortSignal },
): { status: RunStatus; error: EventError; reported: boolean } {
  if (signals.timeout.aborted)
    return { status: "timeout", error: toEventError(new AppError("RUN_TIMEOUT")), reported: false };
  if (signals.state.aborted)
    return { status: "error", error: toEventError(new AppError("STATE_TOO_LARGE")), reported: false };
  if (error instanceof NodeFailure) return { status: "error", error: error.error, reported: true };
  if (error instanceof GraphRecursionError)
    return { status: "error", error: toEventError(new AppError("MAX_SUPERSTEPS")), reported: false };
  if (error instanceof InvalidUpdateError) {
    return {
      status: "error",
      error: {
        code: "PARALLEL_WRITE_CONFLICT",
        message: new AppError("PARALLEL_WRITE_CONFLICT").message,
        details: { reason: error.message.split("\n")[0] },
      },
      reported: false,
    };
  }
  if ((error as Error)?.name === "AbortError" || (error as Error)?.name === "RunCancelled") {
    return { status: "cancelled", error: toEventError(new AppError("RUN_CANCELLED")), reported: false };
  }
  return { status: "error", error: toEventError(error), reported: false };
}

/**
 * Runs (or continues) a workflow and yields its events; the generator's return value is the
 * outcome. Throws AppError WORKFLOW_INVALID or RUN_INPUT_INVALID before any event. `document`
 * may be a StoredDocument (the text a run was saved with), whose validation is remembered.
 */
export async function* runStream(
  document: unknown,
  input: unknown,
  options: RunOptions,
): AsyncGenerator<StudioEvent, RunOutcome> {
  // The run's signals are its own and let go of everything outside the run when the call ends
  // (finished, failed or abandoned by its reader): the timeout's timer is cleared (it held each
  // ended run for the whole STUDIO_RUN_TIMEOUT) and the caller's signal no longer leads to the run
  // (see linked-abort.ts for why not AbortSignal.any()).
  // An imported graph runs its own Python code in the import sandbox: not compiled here.
  const parsed = document instanceof StoredDocument ? document.parsed() : document;
  const imported = importedGraphOf(parsed);
  if (imported) {
    const checked = workflowDocument.safeParse(parsed);
    if (!checked.success)
      throw new AppError(
        "WORKFLOW_INVALID",
        checked.error.issues.map((issue) => ({
          code: "DOCUMENT_SCHEMA",
          path: issue.path.join("."),
          message: `${issue.path.join(".") || "document"}: ${issue.message}`,
        })),
      );
    return yield* runImported({ ...checked.data, imported: checked.data.imported ?? imported }, input, options);
  }
  const timeout = new LinkedAbort();
  const stateLimit = new AbortController();
  const run = new LinkedAbort([timeout.signal, stateLimit.signal, options.signal]);
  try {
    return yield* streamTurn(document, input, options, { timeout, stateLimit, run });
  } finally {
    run.dispose();
    timeout.dispose();
  }
}

/** A run's signals: its timeout, the state size limit, and the one the graph and its nodes see. */
interface RunSignals {
  timeout: LinkedAbort;
  stateLimit: AbortController;
  run: LinkedAbort;
}

async function* streamTurn(
  document: unknown,
  input: unknown,
  options: RunOptions,
  signals: RunSignals,
): AsyncGenerator<StudioEvent, RunOutcome> {
  const credentialsOf = memoized(options.credentials ?? (async () => undefined));
  const workflow = await prepareWorkflow(document, {
    ...options,
    credentialType: async (id) => (await credentialsOf(id))?.type,
  });
  const credentials = await openRunCredentials(workflow, credentialsOf);
  const { redactor } = credentials;
  const runId = options.runId ?? randomUUID();
  const mode = options.mode ?? "full";
  const graph: CompiledGraph = compileWorkflow(workflow);
  const resuming = options.resume !== undefined;
  const runInput = resuming
    ? null
    : { ...initialHiddenState(workflow), ...replaceDefaults(workflow.document), ...checkRunInput(workflow, input) };

  signals.timeout.abortAfter(
    options.timeoutMs ?? options.engine.runTimeoutMs,
    () => new DOMException("The run timed out", "TimeoutError"),
  );
  const { timeout, stateLimit } = signals;
  const { signal } = signals.run;
  const testPause = testPauseFor(options.engine, runId, signal);
  const saver = options.checkpointer ?? new MemorySaver();
  const checkpointer = testPause ? testPause.watch(saver) : saver;
  const ctx: RunContext = {
    runId,
    keyPrefix: runId,
    attempt: options.attempt ?? 1,
    ledger: options.ledger ?? new MemoryResultLedger(),
    engine: options.engine,
    context: options.context ?? {},
    signal,
    depth: 0,
    nodePrefix: "",
    credentials,
    testPause,
    ...(options.pins ? { pins: options.pins } : {}),
  };
  const threadConfig = withCheckpointer({ configurable: { thread_id: runId } }, checkpointer);
  const events = new EventStamper(runId, redactor, options);
  const stamp = (event: NodeEvent) => events.stamp(event);

  yield await stamp({ type: "run_started", data: { mode, resumed: resuming, attempt: ctx.attempt } });

  // An answer that comes after the Human node's timeout does not resume the run: it expired.
  if (options.resume?.kind === "human") {
    const expired = await expiredWait(graph, threadConfig);
    if (expired) {
      const error = toEventError(
        new AppError("HUMAN_WAIT_EXPIRED", { node_id: expired.node_id, expires_at: expired.expires_at }),
      );
      const state = visibleState(expired.values);
      yield await stamp({ type: "error", node_id: expired.node_id, data: { error } });
      yield await stamp({ type: "run_finished", data: { status: "expired", error, state } });
      return {
        runId,
        status: "expired",
        state,
        output: outputOf(workflow, state),
        error,
        supersteps: events.supersteps,
        nextSeq: events.seq,
      };
    }
  }

  const streamInput =
    options.resume?.kind === "human" ? new Command({ resume: options.resume.input }) : resuming ? null : runInput;
  let failure: ReturnType<typeof classify> | null = null;
  let lastValues: Record<string, unknown> | null = null;
  let interrupted = false;
  try {
    const stream = await graph.stream(streamInput, {
      ...threadConfig,
      configurable: { ...threadConfig.configurable, studio: ctx },
      streamMode: ["custom", "values"],
      recursionLimit: options.engine.maxSupersteps + 1,
      signal,
      durability: "sync",
      ...(mode === "step" ? { interruptAfter: "*" as const } : {}),
    });
    for await (const [streamMode, chunk] of stream as AsyncIterable<[string, unknown]>) {
      if (streamMode === "custom") {
        const event = asNodeEvent(chunk);
        if (event) yield await stamp(event);
      } else if (streamMode === "values") {
        const values = chunk as Record<string, unknown>;
        if (Object.hasOwn(values, "__interrupt__")) {
          interrupted = true;
          continue;
        }
        lastValues = values;
        if (jsonBytes(values) > options.engine.maxStateBytes) stateLimit.abort();
      }
    }
    if (signal.aborted) throw signal.reason;
  } catch (error) {
    const classified = classify(error, { timeout: timeout.signal, state: stateLimit.signal });
    failure = { ...classified, error: redactor.value(classified.error) };
  } finally {
    // Also when the reader leaves early: no child kept for this turn outlives it.
    endRunSandboxScopes(runId);
  }

  // A full run that ended without an interrupt is finished: its last values are its state, and
  // reading the checkpoint back is only needed to learn what is pending.
  let snapshot: Awaited<ReturnType<CompiledGraph["getState"]>> | null = null;
  if (interrupted || mode === "step" || failure || !lastValues) {
    // Reading back the state of a failed step can fail the same way (e.g. the clashing writes are
    // replayed); the last values streamed are then the state.
    snapshot = await graph.getState(threadConfig).catch((error: unknown) => {
      if (failure) return null;
      throw error;
    });
  }
  // Node outputs were scrubbed as they were written; the state is scrubbed again in case a
  // secret arrived another way (e.g. the run's input).
  const state = redactor.value(
    visibleState(((snapshot ? snapshot.values : lastValues) ?? {}) as Record<string, unknown>),
  );
  const base = { runId, state, output: outputOf(workflow, state), supersteps: events.supersteps };

  if (failure) {
    if (!failure.reported) yield await stamp({ type: "error", data: { error: failure.error } });
    yield await stamp({ type: "run_finished", data: { status: failure.status, error: failure.error, state } });
    return { ...base, status: failure.status, error: failure.error, nextSeq: events.seq };
  }

  const interrupts = snapshot?.tasks.flatMap((task) => task.interrupts ?? []) ?? [];
  if (interrupts.length > 0) {
    const request = interrupts[0]?.value as HumanRequest;
    const waiting = {
      ...request,
      expires_at: request.timeout_seconds ? new Date(Date.now() + request.timeout_seconds * 1000).toISOString() : null,
    };
    yield await stamp({ type: "run_waiting", node_id: request.node_id, data: { ...waiting } });
    return { ...base, status: "waiting", waiting, nextSeq: events.seq };
  }
  if (snapshot && snapshot.next.length > 0) {
    const next = [...snapshot.next];
    yield await stamp({ type: "run_paused", data: { next } });
    return { ...base, status: "paused", next, nextSeq: events.seq };
  }
  yield await stamp({ type: "run_finished", data: { status: "ok", output: base.output, state } });
  return { ...base, status: "ok", nextSeq: events.seq };
}
