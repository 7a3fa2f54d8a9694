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

/** The node, or NODE_NOT_FOUND / NODE_RUN_UNSUPPORTED (a For each body needs its item and index). */
export function nodeToRunAlone(workflow: ValidatedWorkflow, nodeId: string): TypedNode {
  const node = workflow.nodes.get(nodeId);
  if (!node) throw new AppError("NODE_NOT_FOUND", { node_id: nodeId });
  const body = [...workflow.forEachBodies.values()].includes(nodeId);
  if (!RUNNABLE_ALONE.has(node.type) || body) {
    throw new AppError("NODE_RUN_UNSUPPORTED", {
      node_id: nodeId,
      type: node.type,
      reason: body ? "for_each_body" : "type",
    });
  }
  return node;
}
