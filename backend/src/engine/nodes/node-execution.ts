// What every node executor receives, and what it returns: a partial state update.
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { RunContext } from "../runtime/run-context.js";
import type { TemplateScope } from "../templates/template.js";
import type { TypedNode } from "../validator/validator.js";

export interface ExecutionEnv<N extends TypedNode = TypedNode> {
  node: N;
  scope: TemplateScope;
  ctx: RunContext;
  config: LangGraphRunnableConfig;
  /** Idempotency key of this execution: run, node and iteration. */
  key: string;
  emitToken(text: string): void;
  /** LLM token counts of this execution, reported in node_finished and the run's metrics. */
  reportUsage(usage: { input_tokens: number; output_tokens: number }): void;
  /** The compiled child graph of a Subgraph node. */
  child?: unknown;
  /** Names of the declared state fields. */
  stateFields: ReadonlySet<string>;
}

export type Executor<N extends TypedNode = TypedNode> = (env: ExecutionEnv<N>) => Promise<Record<string, unknown>>;

/** Node types whose calls reach the outside world: their results go through the ledger. */
export const SIDE_EFFECT_TYPES: ReadonlySet<string> = new Set(["llm", "tool", "decision", "send_email"]);
