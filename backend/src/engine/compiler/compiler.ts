// Compiles a validated workflow into a LangGraph StateGraph. Plain edges become addEdge;
// Condition, Decision and For each become addConditionalEdges with a label map; a Join is a
// deferred node (it runs once, after every branch that is still running has finished); state
// fields become channels with their reducers. Compiled graphs are cached by content.
import {
  type BaseCheckpointSaver,
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
    builder.addNode(node.id, fn, node.type === "join" ? { defer: true } : undefined);
    if (node.type === "for_each") {
      const done = workflow.model.outgoing.get(node.id)?.find((e) => e.label === "done")?.target;
      builder.addNode(gatherNodeId(node.id), gatherFunction(node, done && isJoin(done) ? done : undefined));
    }
  }

  for (const node of workflow.nodes.values()) {
    const out = workflow.model.outgoing.get(node.id) ?? [];
    const source = node.type === "start" ? START : node.id;
    if (node.type === "end" || out.length === 0) continue;
    if (node.type === "condition" || node.type === "decision") {
      const map: Record<string, string> = {};
      for (const edge of out) map[edge.label as string] = target(workflow, edge.target);
      builder.addConditionalEdges(
        node.id,
        (state: AnyState) => (state[ROUTES_CHANNEL] as Record<string, string>)[node.id] ?? "",
        map,
      );
      continue;
    }
    if (node.type === "for_each") {
      const bodyId = workflow.forEachBodies.get(node.id) as string;
      const done = out.find((e) => e.label === "done")?.target as string;
      builder.addConditionalEdges(node.id, forEachRouter(node, bodyId), [bodyId, gatherNodeId(node.id)]);
      builder.addEdge(bodyId, gatherNodeId(node.id));
      builder.addEdge(gatherNodeId(node.id), target(workflow, done));
      continue;
    }
    if (node.type === "join") {
      // A Join that waited runs again later; one that ran goes on.
      const targets = [...new Set(out.map((e) => target(workflow, e.target)))];
      builder.addConditionalEdges(
        node.id,
        (state: AnyState) =>
          (state[PENDING_CHANNEL] as Record<string, boolean> | undefined)?.[node.id] === true ? node.id : targets,
        [node.id, ...targets],
      );
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
