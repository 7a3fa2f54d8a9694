// What a node may write to each state field: a replace field takes its type (or null), a merge
// field an object, an add field a number; an append field takes an item or a list of items. Real
// node results and pinned outputs are checked the same way. No LangGraph here: the services check
// pins before a run starts without loading it.
import { AppError } from "../../core/errors.js";
import type { WorkflowDocument } from "../../schemas/workflow.schema.js";
import { fitsType, kindOf } from "./state-types.js";

type StateField = WorkflowDocument["state"][number];

/** Throws NODE_OUTPUT_INVALID (or `code`) naming the first write that does not fit its field. */
export function checkNodeOutput(
  nodeId: string,
  update: Record<string, unknown>,
  fields: ReadonlyMap<string, StateField>,
  code: "NODE_OUTPUT_INVALID" | "PIN_OUTPUT_INVALID" = "NODE_OUTPUT_INVALID",
): void {
  for (const [name, value] of Object.entries(update)) {
    const field = fields.get(name);
    if (!field) continue;
    const reducer = field.reducer ?? "replace";
    const fits =
      reducer === "append" ||
      (reducer === "merge" && fitsType("object", value)) ||
      (reducer === "add" && fitsType("number", value)) ||
      (reducer === "replace" && (value === null || fitsType(field.type, value)));
    if (fits) continue;
    const expected = reducer === "merge" ? "an object" : reducer === "add" ? "a number" : withArticle(field.type);
    throw new AppError(
      code,
      { node_id: nodeId, field: name, type: field.type, reducer, got: kindOf(value) },
      `${nodeId} wrote ${kindOf(value)} to "${name}", which takes ${expected}.`,
    );
  }
}

function withArticle(type: string): string {
  return type === "object" ? "an object" : type === "any" ? "any value" : `a ${type}`;
}
