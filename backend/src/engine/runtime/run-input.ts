// A run's input: an object whose keys are state fields the Start node accepts, with fitting types
// (an imported graph's: any object, passed on as it is).
import { AppError } from "../../core/errors.js";
import type { ValidatedWorkflow } from "../validator/validator.js";
import { fitsType } from "./state-types.js";

export function checkRunInput(workflow: ValidatedWorkflow, input: unknown): Record<string, unknown> {
  if (input === undefined || input === null) return {};
  if (typeof input !== "object" || Array.isArray(input)) {
    throw new AppError("RUN_INPUT_INVALID", [{ field: "", message: "must be a JSON object" }]);
  }
  // An imported graph's state is its own (the runner checks it); `__context__` is its runtime context.
  if (workflow.document.imported) return input as Record<string, unknown>;
  const start = workflow.nodes.get(workflow.model.startId);
  const accepted = start?.type === "start" && start.data.inputs ? new Set(start.data.inputs) : null;
  const fields = new Map(workflow.document.state.map((f) => [f.name, f]));
  const problems: { field: string; message: string }[] = [];
  const clean: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    const field = fields.get(key);
    if (!field) problems.push({ field: key, message: "is not a state field of this workflow" });
    else if (accepted && !accepted.has(key))
      problems.push({ field: key, message: "is not an input of the Start node" });
    else if (!fitsType(field.type, value)) problems.push({ field: key, message: `must be a ${field.type}` });
    else Object.defineProperty(clean, key, { value, enumerable: true, writable: true, configurable: true });
  }
  if (problems.length > 0) throw new AppError("RUN_INPUT_INVALID", problems);
  return clean;
}
