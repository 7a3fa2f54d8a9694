// Which node a one-node run may execute: checked before the engine (LangGraph) is loaded.
import { AppError } from "../../core/errors.js";
import type { TypedNode, ValidatedWorkflow } from "../validator/validator.js";

/**
 * Node types that run alone on a given state: each reads the state and returns an update. Human
 * waits for a person, Subgraph runs a whole other graph, For each and Join steer other nodes, and
 * Start and End do nothing: those are refused.
 */
export const RUNNABLE_ALONE: ReadonlySet<string> = new Set([
  "llm",
  "tool",
  "code",
  "condition",
  "decision",
  "send_email",
]);

/**
 * The node, and the For each it is the body of (if any); or NODE_NOT_FOUND / NODE_RUN_UNSUPPORTED.
 * A For each body runs as one iteration, so it needs an item; no other node takes one.
 */
export function nodeToRunAlone(
  workflow: ValidatedWorkflow,
  nodeId: string,
  withItem = false,
): { node: TypedNode; forEachOf: string | undefined } {
  // An imported graph's node is the repository's Python, run only inside the whole graph.
  if (workflow.document.imported)
    throw new AppError("NODE_RUN_UNSUPPORTED", { node_id: nodeId, type: "code", reason: "imported" });
  const node = workflow.nodes.get(nodeId);
  if (!node) throw new AppError("NODE_NOT_FOUND", { node_id: nodeId });
  const forEachOf = [...workflow.forEachBodies].find(([, body]) => body === nodeId)?.[0];
  const refuse = (reason: string) => new AppError("NODE_RUN_UNSUPPORTED", { node_id: nodeId, type: node.type, reason });
  if (!RUNNABLE_ALONE.has(node.type)) throw refuse("type");
  if (forEachOf !== undefined && !withItem) throw refuse("for_each_body");
  if (forEachOf === undefined && withItem) throw refuse("item_outside_for_each");
  return { node, forEachOf };
}
