// What a run call takes and returns (runStream, and the imported-run engine it hands imported
// workflows to).
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { EngineConfig } from "../../core/config.js";
import type { HumanRequest } from "../nodes/human-form.js";
import type { EventError, RunStatus, StudioEvent } from "./events.js";
import type { ImportedRunSetup } from "./imported-run/imported-run-setup.js";
import type { CredentialResolver, ResultLedger, WorkflowResolver } from "./ports.js";

export interface RunOptions {
  engine: EngineConfig;
  /** How long this call may run (STUDIO_RUN_TIMEOUT by default; less for a turn taken over). */
  timeoutMs?: number;
  runId?: string;
  /** "step" runs one superstep and pauses ("One step" in the editor). */
  mode?: "full" | "step";
  /** Continue a paused run, or resume a waiting one with a person's answer. */
  resume?: { kind: "continue" } | { kind: "human"; input: unknown };
  checkpointer?: BaseCheckpointSaver;
  ledger?: ResultLedger;
  context?: Record<string, unknown>;
  signal?: AbortSignal;
  /** How many times this run has been started or resumed; sent as X-Studio-Attempt. */
  attempt?: number;
  /** The seq of the first event this call emits (continuing after earlier events). */
  firstSeq?: number;
  resolveWorkflow?: WorkflowResolver;
  /** The saved workflow's id, so a subgraph that contains it is refused. */
  workflowId?: string;
  /** Opens the run owner's stored credentials; without it, nodes that name one are refused. */
  credentials?: CredentialResolver;
  /** Called with every event as it is emitted, before it is yielded. */
  onEvent?: (event: StudioEvent) => void | Promise<void>;
  /** Pinned outputs by node id (editor runs only; checked before the run was created). */
  pins?: Readonly<Record<string, Record<string, unknown>>>;
  /** Imported workflows (`imported` in the document) run through the import sandbox with these. */
  imports?: ImportedRunSetup;
}

export interface RunOutcome {
  runId: string;
  status: RunStatus;
  /** The visible state when the call ended. */
  state: Record<string, unknown>;
  /** The End node's output selection of the state. */
  output: Record<string, unknown>;
  error?: EventError;
  waiting?: HumanRequest & { expires_at: string | null };
  next?: string[];
  supersteps: number;
  nextSeq: number;
}
