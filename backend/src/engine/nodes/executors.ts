// The executor of each node type.
import { AppError } from "../../core/errors.js";
import type { TypedNode } from "../validator/validator.js";
import { executeCode, executePythonTool } from "./code.node.js";
import { executeCondition, executeForEach, executeJoin } from "./flow.node.js";
import { executeHttpTool } from "./http-tool.node.js";
import { executeHuman } from "./human.node.js";
import { executeLlm, makeDecisionExecutor } from "./llm.node.js";
import type { Executor } from "./node-execution.js";
import { executeSendEmail } from "./send-email.node.js";
import { executeSubgraph } from "./subgraph.node.js";

/** `labels` are the labels of the node's outgoing edges (what a Decision chooses from). */
export function executorFor(node: TypedNode, labels: string[]): Executor {
  const pick = (): Executor<never> => {
    switch (node.type) {
      case "llm":
        return executeLlm;
      case "decision":
        return makeDecisionExecutor(labels.filter(Boolean));
      case "tool":
        return node.data.kind === "http" ? executeHttpTool : executePythonTool;
      case "code":
        return executeCode;
      case "condition":
        return executeCondition;
      case "for_each":
        return executeForEach;
      case "join":
        return executeJoin;
      case "human":
        return executeHuman;
      case "send_email":
        return executeSendEmail;
      case "subgraph":
        return executeSubgraph;
      default:
        throw new AppError("NODE_FAILED", null, `Nodes of type ${node.type} do not run.`);
    }
  };
  return pick() as Executor;
}
