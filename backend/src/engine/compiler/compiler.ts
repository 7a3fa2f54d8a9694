// Compiles a validated workflow into a LangGraph StateGraph. Plain edges become addEdge;
// Condition and Decision return a Command that goes to the edge of the chosen label, and For each
// becomes addConditionalEdges; a Join is a deferred node (it runs once, after every branch that is
// still running has finished) that goes on, or waits, by its Command too; state fields become
// channels with their reducers. Compiled graphs are cached by content.
import {
  type BaseCheckpointSaver,
  Command,
  END,
  type LangGraphRunnableConfig,
  Send,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { contentHash } from "../../core/canonical-json.js";
import { executorFor } from "../nodes/executors.js";
import { renderValue } from "../templates/template.js";
import type { TypedNode, ValidatedWorkflow } from "../validator/validator.js";
import { type JoinPlan, planJoins } from "./join-plan.js";
import { makeNodeFunction, type NodeFunction } from "./node-function.js";
import {
  forEachChannel,
  INDEX_KEY,
  ITEM_KEY,
  PENDING_CHANNEL,
  ROUTES_CHANNEL,
  resetMarker,
  stateDefinition,
} from "./state-channels.js";

type AnyState = Record<string, unknown>;
// Node names are only known at run time, so the builder is typed loosely in this one place.
// biome-ignore lint/suspicious/noExplicitAny: LangGraph's builder types track node names statically.
type LooseGraph = StateGraph<any, AnyState, AnyState, string>;
export type CompiledGraph = ReturnType<LooseGraph["compile"]>;

export function gatherNodeId(forEachId: string): string {
  return `__gather_${forEachId}__`;
}

function target(workflow: ValidatedWorkflow, id: string): string {
  return id === workflow.model.endId ? END : id;
}

function forEachRouter(node: Extract<TypedNode, { type: "for_each" }>, bodyId: string) {
  return (state: AnyState, config: LangGraphRunnableConfig) => {
    const context = (config.configurable?.studio as { context?: Record<string, unknown> } | undefined)?.context ?? {};
    const items = renderValue(node.data.items, { state, context });
    const list = Array.isArray(items) ? items : [];
    if (list.length === 0) return gatherNodeId(node.id);
    return list.map((item, index) => new Send(bodyId, { ...state, [ITEM_KEY]: item, [INDEX_KEY]: index }));
  };
}

/** The gather step: the bodies' results in item order; the For each is no longer pending. */
function gatherFunction(node: Extract<TypedNode, { type: "for_each" }>, doneJoin: string | undefined): NodeFunction {
  const channel = forEachChannel(node.id);
  return async (state) => {
    const entries = ((state[channel] as { index: number; value: unknown }[] | undefined) ?? [])
      .slice()
      .sort((a, b) => a.index - b.index);
    return {
      [node.data.output_field]: entries.map((e) => e.value),
      [channel]: resetMarker(),
      [PENDING_CHANNEL]: { [node.id]: false, ...(doneJoin ? { [doneJoin]: true } : {}) },
    };
  };
}

/** What a node marks in the pending channel when it finishes (see join-plan.ts). */
function pendingMarksOf(node: TypedNode, plan: JoinPlan) {
  const targets = plan.joinTargets.get(node.id) ?? [];
  const byLabel = plan.joinByLabel.get(node.id);
  if (node.type !== "join" && node.type !== "for_each" && targets.length === 0 && !byLabel) return undefined;
  return (update: AnyState): Record<string, boolean> => {
    const marks: Record<string, boolean> = {};
    if (node.type === "join") marks[node.id] = false;
    if (node.type === "for_each") marks[node.id] = true;
    for (const join of targets) marks[join] = true;
    const chosen = byLabel?.get((update[ROUTES_CHANNEL] as Record<string, string> | undefined)?.[node.id] ?? "");
    if (chosen) marks[chosen] = true;
    return marks;
  };
}

/**
 * How a Condition, Decision or Join node says where the run goes next: a Command with its update
 * and its destinations, instead of a conditional edge. A conditional edge is a second runnable
 * after the node that reads the state again with the node's writes applied (a copy of every
 * channel, a new checkpoint id); the node already has its update, and its destinations follow
 * from it and the state it was given exactly as the edge would compute them (the routing
 * channels merge by key). LangGraph writes the same `branch:to:` channels either way, so a
 * checkpoint taken before this change resumes the same. `ends` lists the destinations for
 * LangGraph's drawing of the graph.
 */
function routingOf(
  workflow: ValidatedWorkflow,
  node: TypedNode,
): { ends: string[]; wrap(fn: NodeFunction): CommandNodeFunction } | undefined {
  const out = workflow.model.outgoing.get(node.id) ?? [];
  if (out.length === 0) return undefined;
  if (node.type === "condition" || node.type === "decision") {
    const byLabel = new Map(out.map((edge) => [edge.label as string, target(workflow, edge.target)]));
    return {
      ends: [...new Set(byLabel.values())],
      wrap: (fn) => async (state, config) => {
        const update = await fn(state, config);
        const label = latest<string>(ROUTES_CHANNEL, node.id, state, update) ?? "";
        const goto = byLabel.get(label);
        // The validator gives every label an edge; this is what LangGraph says when one has none.
        if (goto === undefined) throw new Error("Branch condition returned unknown or null destination");
        return new Command({ update, goto });
      },
    };
  }
  if (node.type === "join") {
    // A Join that waited runs again later; one that ran goes on.
    const targets = [...new Set(out.map((edge) => target(workflow, edge.target)))];
    return {
      ends: [node.id, ...targets],
      wrap: (fn) => async (state, config) => {
        const update = await fn(state, config);
        const waiting = latest<boolean>(PENDING_CHANNEL, node.id, state, update) === true;
        return new Command({ update, goto: waiting ? node.id : targets });
      },
    };
  }
  return undefined;
}

/** A key of a channel merged by key (routes, pending) as the node's update leaves it. */
function latest<V>(channel: string, key: string, state: AnyState, update: AnyState): V | undefined {
  const written = update[channel] as Record<string, V> | undefined;
  if (written && Object.hasOwn(written, key)) return written[key];
  return (state[channel] as Record<string, V> | undefined)?.[key];
}

type CommandNodeFunction = (state: AnyState, config: LangGraphRunnableConfig) => Promise<Command>;

function build(workflow: ValidatedWorkflow): CompiledGraph {
  const forEachIds = [...workflow.forEachBodies.keys()];
  const builder = new StateGraph(stateDefinition(workflow.document, forEachIds) as never) as unknown as LooseGraph;
  const bodyOf = new Map<string, string>();
  for (const [forEachId, bodyId] of workflow.forEachBodies) bodyOf.set(bodyId, forEachId);
  const children = new Map<string, CompiledGraph>();
  for (const [nodeId, child] of workflow.subgraphs) children.set(nodeId, compileWorkflow(child));

  const stateFields = new Set(workflow.document.state.map((f) => f.name));
  const fields = new Map(workflow.document.state.map((f) => [f.name, f]));
  const plan = planJoins(workflow);
  const isJoin = (id: string) => workflow.nodes.get(id)?.type === "join";
  for (const node of workflow.nodes.values()) {
    if (node.type === "start" || node.type === "end") continue;
    const labels = (workflow.model.outgoing.get(node.id) ?? []).map((e) => e.label ?? "");
    const fn = makeNodeFunction(node, executorFor(node, labels), {
      forEachOf: bodyOf.get(node.id),
      child: children.get(node.id),
      stateFields,
      fields,
      waitFor: plan.waitFor.get(node.id),
      pendingMarks: pendingMarksOf(node, plan),
    });
    const routing = routingOf(workflow, node);
    // The loose builder types a node's return as a state update; a Command is one too for LangGraph.
    builder.addNode(node.id, (routing ? routing.wrap(fn) : fn) as NodeFunction, {
      ...(node.type === "join" ? { defer: true } : {}),
      ...(routing ? { ends: routing.ends } : {}),
    });
    if (node.type === "for_each") {
      const done = workflow.model.outgoing.get(node.id)?.find((e) => e.label === "done")?.target;
      builder.addNode(gatherNodeId(node.id), gatherFunction(node, done && isJoin(done) ? done : undefined));
    }
  }

  for (const node of workflow.nodes.values()) {
    const out = workflow.model.outgoing.get(node.id) ?? [];
    const source = node.type === "start" ? START : node.id;
    if (node.type === "end" || out.length === 0) continue;
    // Condition, Decision and Join route by the Command they return (see routingOf).
    if (node.type === "condition" || node.type === "decision" || node.type === "join") continue;
    if (node.type === "for_each") {
      const bodyId = workflow.forEachBodies.get(node.id) as string;
      const done = out.find((e) => e.label === "done")?.target as string;
      builder.addConditionalEdges(node.id, forEachRouter(node, bodyId), [bodyId, gatherNodeId(node.id)]);
      builder.addEdge(bodyId, gatherNodeId(node.id));
      builder.addEdge(gatherNodeId(node.id), target(workflow, done));
      continue;
    }
    for (const edge of out) builder.addEdge(source, target(workflow, edge.target));
  }
  return builder.compile({ name: workflow.document.name });
}

// Validated workflows are never changed once built, and a child used by many Subgraph nodes is
// one shared object: remembering each one's key keeps compileKey linear in the distinct
// workflows instead of exponential in the nesting depth.
const keys = new WeakMap<ValidatedWorkflow, string>();

/** Hidden state a run starts with: Joins right after Start are pending from the outset. */
export function initialHiddenState(workflow: ValidatedWorkflow): AnyState {
  const { joinsAfterStart } = planJoins(workflow);
  return joinsAfterStart.length > 0
    ? { [PENDING_CHANNEL]: Object.fromEntries(joinsAfterStart.map((id) => [id, true])) }
    : {};
}

/** A key for the compiled graph: the document and, recursively, its subgraphs. */
function compileKey(workflow: ValidatedWorkflow): string {
  const known = keys.get(workflow);
  if (known !== undefined) return known;
  const children = [...workflow.subgraphs.entries()].map(([id, child]) => [id, compileKey(child)]);
  const key = contentHash({ document: workflow.document, children });
  keys.set(workflow, key);
  return key;
}

// Compiled graphs carry no checkpointer: each run lends its own through the config (see
// withCheckpointer), so one compiled graph serves every run of the same content. At most
// COMPILED_GRAPHS_KEPT are kept, the least recently used dropped first: the server's memory does
// not grow with the number of distinct workflows it has run.
const cache = new Map<string, CompiledGraph>();
export const COMPILED_GRAPHS_KEPT = 200;

/** How many compiled graphs are kept (tests). */
export function compiledGraphsKept(): number {
  return cache.size;
}

/** The compiled graph for a workflow, from the cache when the same content was compiled before. */
export function compileWorkflow(workflow: ValidatedWorkflow): CompiledGraph {
  const key = compileKey(workflow);
  const cached = cache.get(key);
  if (cached) {
    // Most recently used last, so the oldest is dropped first.
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const graph = build(workflow);
  if (cache.size >= COMPILED_GRAPHS_KEPT) cache.delete(cache.keys().next().value as string);
  cache.set(key, graph);
  return graph;
}

// LangGraph's config key through which a parent lends its checkpointer to a subgraph; a root
// graph compiled without one takes it the same way.
const CHECKPOINTER_KEY = "__pregel_checkpointer";

/** A run config that lends `checkpointer` to the compiled graph (and its subgraphs). */
export function withCheckpointer<C extends { configurable?: Record<string, unknown> }>(
  config: C,
  checkpointer: BaseCheckpointSaver,
): C & { configurable: Record<string, unknown> } {
  return { ...config, configurable: { ...config.configurable, [CHECKPOINTER_KEY]: checkpointer } };
}
