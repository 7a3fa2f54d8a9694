// Wraps a node executor into a LangGraph node function: events, idempotency key, the result
// ledger for side effects, For each capture, and error reporting.
import { isGraphInterrupt, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { turnPace } from "../../core/turn-pace.js";
import type { WorkflowDocument } from "../../schemas/workflow.schema.js";
import { type Executor, SIDE_EFFECT_TYPES } from "../nodes/node-execution.js";
import { truncateForEvent } from "../runtime/limits.js";
import { NodeFailure, toEventError } from "../runtime/node-failure.js";
import { checkNodeOutput } from "../runtime/output-types.js";
import { emitNodeEvent, runContextOf, superstepOf } from "../runtime/run-context.js";
import type { TemplateScope } from "../templates/template.js";
import type { TypedNode } from "../validator/validator.js";
import {
  forEachChannel,
  INDEX_KEY,
  ITEM_KEY,
  PENDING_CHANNEL,
  ROUTES_CHANNEL,
  VISITS_CHANNEL,
  visibleState,
} from "./state-channels.js";

type AnyState = Record<string, unknown>;
export type NodeFunction = (state: AnyState, config: LangGraphRunnableConfig) => Promise<AnyState>;

// Defined without LangGraph so that the run executor can classify errors before it loads it.
export { NodeFailure, toEventError };

/** What a For each body contributes for its item: its output field, or its whole update. */
function bodyValue(node: TypedNode, update: AnyState): unknown {
  switch (node.type) {
    case "llm":
    case "tool":
      return update[node.data.output_field];
    case "send_email":
      return node.data.output_field ? update[node.data.output_field] : update;
    default:
      return update;
  }
}

type StateField = WorkflowDocument["state"][number];

/** The label a Condition or Decision chose, from its hidden routing write. */
function route(update: AnyState, nodeId: string): string | undefined {
  return (update[ROUTES_CHANNEL] as Record<string, string> | undefined)?.[nodeId];
}

export function makeNodeFunction(
  node: TypedNode,
  execute: Executor,
  options: {
    forEachOf?: string;
    child?: unknown;
    stateFields: ReadonlySet<string>;
    /** The declared state fields with their types and reducers. */
    fields: ReadonlyMap<string, StateField>;
    /** For a Join: the Joins and For each nodes whose pending work it waits for. */
    waitFor?: readonly string[];
    /** What this node marks pending (or done) in the pending channel when it finishes. */
    pendingMarks?(update: AnyState): Record<string, boolean> | null;
  },
): NodeFunction {
  const sideEffect = SIDE_EFFECT_TYPES.has(node.type);
  return async (state, config) => {
    // Many runs' steps woken at once share the event loop with requests: see core/turn-pace.ts.
    const paced = turnPace.pace();
    if (paced) await paced;
    // A Join that pending work can still reach schedules itself again, silently.
    const pending = (state[PENDING_CHANNEL] ?? {}) as Record<string, boolean>;
    if (options.waitFor?.some((id) => pending[id] === true)) return { [PENDING_CHANNEL]: { [node.id]: true } };
    const ctx = runContextOf(config);
    const { redactor } = ctx.credentials;
    const superstep = superstepOf(config);
    const asBody = options.forEachOf !== undefined && Object.hasOwn(state, ITEM_KEY);
    const index = asBody ? (state[INDEX_KEY] as number) : undefined;
    const scope: TemplateScope = {
      state: visibleState(state),
      context: ctx.context,
      ...(asBody ? { item: state[ITEM_KEY], index } : {}),
    };
    const visits = (state[VISITS_CHANNEL] as Record<string, number> | undefined)?.[node.id] ?? 0;
    const iteration = asBody ? `${visits}.${index}` : String(visits);
    const key = `${ctx.keyPrefix}:${node.id}:${iteration}`;
    const base = { node_id: ctx.nodePrefix + node.id, superstep };
    // An iteration's item is its input: the trace shows it beside the iteration's output.
    const item = asBody ? { item: truncateForEvent(redactor.value(state[ITEM_KEY]), ctx.engine.maxEventBytes) } : {};
    emitNodeEvent(config, { ...base, type: "node_started", data: { node_type: node.type, iteration, ...item } });
    const started = performance.now();

    let update: AnyState;
    let reused = false;
    let usage: { input_tokens: number; output_tokens: number } | undefined;
    // An editor run's pinned output stands in for the node: nothing is called, nothing enters the
    // ledger. Pins name top-level nodes only (a Subgraph's nodes share the context, not the ids).
    const pin = ctx.nodePrefix === "" ? ctx.pins?.[node.id] : undefined;
    try {
      const done = pin || !sideEffect ? undefined : await ctx.ledger.get(key);
      if (pin) {
        update = structuredClone(pin);
        if (!asBody) checkNodeOutput(node.id, update, options.fields);
      } else if (done) {
        update = done.update;
        reused = true;
      } else {
        update = await execute({
          node,
          scope,
          ctx,
          config,
          key,
          child: options.child,
          stateFields: options.stateFields,
          emitToken: (text) =>
            emitNodeEvent(config, { ...base, type: "node_token", data: { text: redactor.text(text) } }),
          reportUsage: (tokens) => {
            usage = tokens;
          },
        });
        if (!asBody) checkNodeOutput(node.id, update, options.fields);
        // Secrets of the run's credentials never reach the state, the ledger or events.
        update = redactor.value(update);
        if (sideEffect) {
          await ctx.ledger.put(key, { update });
          await ctx.testPause?.afterLedger(base.node_id, key);
        }
      }
    } catch (error) {
      if (isGraphInterrupt(error) || ctx.signal.aborted || error instanceof NodeFailure) throw error;
      const reported = redactor.value(toEventError(error));
      emitNodeEvent(config, { ...base, type: "error", data: { error: reported, iteration } });
      throw new NodeFailure(node.id, reported);
    }

    emitNodeEvent(config, {
      ...base,
      type: "node_finished",
      data: {
        output: truncateForEvent(visibleState(update), ctx.engine.maxEventBytes),
        duration_ms: Math.round(performance.now() - started),
        reused,
        iteration,
        ...(pin ? { pinned: true } : {}),
        ...(route(update, node.id) ? { route: route(update, node.id) } : {}),
        ...(usage ? { usage } : {}),
      },
    });
    ctx.testPause?.nodeFinished(base.node_id, key);
    const visited = { [VISITS_CHANNEL]: { [node.id]: visits + 1 } };
    if (asBody) {
      return { [forEachChannel(options.forEachOf as string)]: [{ index, value: bodyValue(node, update) }], ...visited };
    }
    const marks = options.pendingMarks?.(update);
    return { ...update, ...visited, ...(marks ? { [PENDING_CHANNEL]: marks } : {}) };
  };
}
