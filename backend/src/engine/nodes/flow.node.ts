// Nodes that only steer the run: Condition, For each and Join.
import { AppError } from "../../core/errors.js";
import { ROUTES_CHANNEL } from "../compiler/state-channels.js";
import { renderValue } from "../templates/template.js";
import type { TypedNode } from "../validator/validator.js";
import { chooseConditionLabel } from "./condition.node.js";
import type { Executor } from "./node-execution.js";

export const executeCondition: Executor<Extract<TypedNode, { type: "condition" }>> = async ({ node, scope }) => ({
  [ROUTES_CHANNEL]: { [node.id]: chooseConditionLabel(node.data, scope) },
});

/** Checks the list up front, so a bad list fails at the For each rather than silently skipping. */
export const executeForEach: Executor<Extract<TypedNode, { type: "for_each" }>> = async ({ node, scope }) => {
  const items = renderValue(node.data.items, scope);
  if (items !== null && !Array.isArray(items)) {
    throw new AppError("NODE_FAILED", { items: typeof items }, `${node.data.items} is not a list.`);
  }
  const count = Array.isArray(items) ? items.length : 0;
  if (count > node.data.max_items) {
    throw new AppError(
      "NODE_FAILED",
      { count, max_items: node.data.max_items },
      `The list has ${count} items; max_items is ${node.data.max_items}.`,
    );
  }
  return {};
};

export const executeJoin: Executor = async () => ({});
