// What a node needs while a run goes on. It travels in the LangGraph config (`configurable.studio`)
// so one compiled graph serves every run.
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { EngineConfig } from "../../core/config.js";
import { AppError } from "../../core/errors.js";
import type { NodeEvent } from "./events.js";
import type { ResultLedger } from "./ports.js";
import type { RunCredentials } from "./run-credentials.js";
import type { TestPause } from "./test-pause.js";

export interface RunContext {
  runId: string;
  /** Prefix of idempotency keys: the run id, extended with the node path inside subgraphs. */
  keyPrefix: string;
  /** How many times this run has been started or resumed (X-Studio-Attempt). */
  attempt: number;
  ledger: ResultLedger;
  engine: EngineConfig;
  /** Values for {{context.x}}. */
  context: Record<string, unknown>;
  signal: AbortSignal;
  /** Subgraph nesting depth of the graph the node belongs to. */
  depth: number;
  /** Prefix of node ids in events: "" at the top, "sub/" inside the Subgraph node `sub`. */
  nodePrefix: string;
  /** The owner's credentials this run uses, and the redactor for their secrets. */
  credentials: RunCredentials;
  /** The testing aid STUDIO_TEST_PAUSE_AT; null in production. */
  testPause: TestPause | null;
  /** An editor run's pinned outputs by top-level node id: these nodes do not execute. */
  pins?: Readonly<Record<string, Record<string, unknown>>>;
}

const EVENT_MARKER = "__studio_event__";

export function runContextOf(config: LangGraphRunnableConfig): RunContext {
  const context = config.configurable?.studio as RunContext | undefined;
  if (!context) throw new AppError("NODE_FAILED", null, "A studio node ran outside a studio run.");
  return context;
}

/** Sends an event to the run's stream right away (LangGraph's custom stream mode). */
export function emitNodeEvent(config: LangGraphRunnableConfig, event: NodeEvent): void {
  config.writer?.({ [EVENT_MARKER]: event });
}

export function asNodeEvent(chunk: unknown): NodeEvent | null {
  if (chunk !== null && typeof chunk === "object" && EVENT_MARKER in chunk) {
    return (chunk as Record<string, NodeEvent>)[EVENT_MARKER] ?? null;
  }
  return null;
}

export function superstepOf(config: LangGraphRunnableConfig): number | undefined {
  const step = config.metadata?.langgraph_step;
  return typeof step === "number" ? step : undefined;
}
