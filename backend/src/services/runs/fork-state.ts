// The state a user edits before forking a run: the declared state fields only, each holding what
// its reducer keeps (a replace field its type or null, an append field a list, a merge field an
// object, an add field a number). Edited values replace the checkpoint's; they do not go through
// the reducers.
import { AppError } from "../../core/errors.js";
import { fitsType, kindOf } from "../../engine/runtime/state-types.js";
import type { WorkflowDocument } from "../../schemas/workflow.schema.js";

type StateField = WorkflowDocument["state"][number];

function fits(field: StateField, value: unknown): boolean {
  switch (field.reducer ?? "replace") {
    case "append":
      return Array.isArray(value);
    case "merge":
      return fitsType("object", value);
    case "add":
      return fitsType("number", value);
    default:
      return value === null || fitsType(field.type, value);
  }
}

function expected(field: StateField): string {
  switch (field.reducer ?? "replace") {
    case "append":
      return "a list (the field appends)";
    case "merge":
      return "an object (the field merges)";
    case "add":
      return "a number (the field adds)";
    default:
      return `a ${field.type} or null`;
  }
}

/** The edited fields, checked against the workflow's state fields (FORK_STATE_INVALID otherwise). */
export function checkForkState(document: WorkflowDocument, state: Record<string, unknown>): Record<string, unknown> {
  const fields = new Map(document.state.map((field) => [field.name, field]));
  const problems: { field: string; message: string }[] = [];
  const clean: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(state)) {
    const field = fields.get(name);
    if (!field) problems.push({ field: name, message: "is not a state field of this workflow" });
    else if (!fits(field, value))
      problems.push({ field: name, message: `must be ${expected(field)}, not ${kindOf(value)}` });
    else Object.defineProperty(clean, name, { value, enumerable: true, writable: true, configurable: true });
  }
  if (problems.length > 0) throw new AppError("FORK_STATE_INVALID", problems);
  return clean;
}
