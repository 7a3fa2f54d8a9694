// Runs one node of a workflow on a given state, without anything upstream or downstream: the
// node function a run would execute (the same executor, output check and secret redaction), called
// once with a context of its own. Nothing is checkpointed and the ledger is an in-memory one that
// is dropped afterwards; the node's own side effects (an LLM call, an HTTP request, an email) do
// happen, which is the point.
import { randomUUID } from "node:crypto";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { EngineConfig } from "../../core/config.js";
import { AppError } from "../../core/errors.js";
import { LinkedAbort } from "../../core/linked-abort.js";
import { makeNodeFunction } from "../compiler/node-function.js";
import {
  applyUpdate,
  INDEX_KEY,
  ITEM_KEY,
  ROUTES_CHANNEL,
  stateWithDefaults,
  visibleState,
} from "../compiler/state-channels.js";
import { executorFor } from "../nodes/executors.js";
import { endRunSandboxScopes } from "../nodes/sandbox-scope.js";
import type { ValidatedWorkflow } from "../validator/validator.js";
import type { EventError, NodeEvent } from "./events.js";
import { NodeFailure, toEventError } from "./node-failure.js";
import { nodeToRunAlone } from "./one-node-target.js";
import { type CredentialResolver, MemoryResultLedger } from "./ports.js";
import { asNodeEvent, type RunContext } from "./run-context.js";
import { memoized, openRunCredentials } from "./run-credentials.js";

export interface OneNodeOptions {
  engine: EngineConfig;
  /** For a node inside a For each: the one iteration to run (its item, and its index, 0 if not given). */
  iteration?: { item: unknown; index?: number };
  /** Opens the caller's stored credentials; without it, nodes that name one are refused. */
  credentials?: CredentialResolver;
  /** Values for {{context.x}}. */
  context?: Record<string, unknown>;
  signal?: AbortSignal;
}

export interface OneNodeResult {
  node_id: string;
  node_type: string;
  status: "ok" | "error";
  /** The state the node ran on (defaults filled in). */
  input_state: Record<string, unknown>;
  /** The node's update (its visible fields); null when it failed. */
  output: Record<string, unknown> | null;
  /** The input state with the update applied through each field's reducer; null when it failed. */
  state: Record<string, unknown> | null;
  /** The label a Condition or Decision chose. */
  route: string | null;
  usage: { input_tokens: number; output_tokens: number } | null;
  duration_ms: number;
  error: EventError | null;
}

/**
 * Executes `nodeId` once on `values` (visible state fields, checked by the caller). Throws
 * NODE_NOT_FOUND or NODE_RUN_UNSUPPORTED before anything runs; a failure of the node itself is
 * the result's `error`.
 */
export async function runOneNode(
  workflow: ValidatedWorkflow,
  nodeId: string,
  values: Record<string, unknown>,
  options: OneNodeOptions,
): Promise<OneNodeResult> {
  const { node, forEachOf } = nodeToRunAlone(workflow, nodeId, options.iteration !== undefined);
  const credentials = await openRunCredentials(workflow, memoized(options.credentials ?? (async () => undefined)));
  const { document } = workflow;
  const input = stateWithDefaults(document, values);
  const labels = (workflow.model.outgoing.get(node.id) ?? []).map((edge) => edge.label ?? "");
  const run = makeNodeFunction(node, executorFor(node, labels), {
    stateFields: new Set(document.state.map((field) => field.name)),
    fields: new Map(document.state.map((field) => [field.name, field])),
    ...(forEachOf !== undefined ? { forEachOf } : {}),
  });
  // An iteration runs on the state with its item and index, as the For each hands them out.
  const iteration = options.iteration
    ? { [ITEM_KEY]: options.iteration.item, [INDEX_KEY]: options.iteration.index ?? 0 }
    : {};
  const timeout = new LinkedAbort();
  const signal = new LinkedAbort([timeout.signal, options.signal]);
  timeout.abortAfter(options.engine.runTimeoutMs, () => new DOMException("The node timed out", "TimeoutError"));
  // Its own id: the idempotency key a Tool sends (`node-run-…:<node>:0`) never matches a real run's.
  const runId = `node-run-${randomUUID()}`;
  const ctx: RunContext = {
    runId,
    keyPrefix: runId,
    attempt: 1,
    ledger: new MemoryResultLedger(),
    engine: { ...options.engine, maxEventBytes: Number.MAX_SAFE_INTEGER },
    context: options.context ?? {},
    signal: signal.signal,
    depth: 0,
    nodePrefix: "",
    credentials,
    testPause: null,
  };
  const events: NodeEvent[] = [];
  const config: LangGraphRunnableConfig = {
    configurable: { studio: ctx },
    writer: (chunk: unknown) => {
      const event = asNodeEvent(chunk);
      if (event) events.push(event);
    },
    signal: signal.signal,
  };
  const base = { node_id: node.id, node_type: node.type, input_state: input };
  const started = performance.now();
  try {
    const returned = await run(structuredClone({ ...input, ...iteration }), config);
    const duration_ms = Math.round(performance.now() - started);
    const finished = events.find((event) => event.type === "node_finished")?.data;
    // An iteration's own update is what its node_finished event shows (the For each, not the
    // iteration, writes the state); events of a one-node run are not cut to the event size limit.
    const output =
      forEachOf === undefined ? visibleState(returned) : ((finished?.output ?? {}) as Record<string, unknown>);
    const route = (returned[ROUTES_CHANNEL] as Record<string, string> | undefined)?.[node.id] ?? null;
    return {
      ...base,
      status: "ok",
      output,
      state: forEachOf === undefined ? credentials.redactor.value(applyUpdate(document, input, output)) : null,
      route,
      usage: (finished?.usage as OneNodeResult["usage"] | undefined) ?? null,
      duration_ms,
      error: null,
    };
  } catch (error) {
    const duration_ms = Math.round(performance.now() - started);
    const reported =
      error instanceof NodeFailure
        ? error.error
        : timeout.signal.aborted
          ? toEventError(new AppError("RUN_TIMEOUT"))
          : credentials.redactor.value(toEventError(error));
    return {
      ...base,
      status: "error",
      output: null,
      state: null,
      route: null,
      usage: null,
      duration_ms,
      error: reported,
    };
  } finally {
    signal.dispose();
    timeout.dispose();
    endRunSandboxScopes(runId);
  }
}
