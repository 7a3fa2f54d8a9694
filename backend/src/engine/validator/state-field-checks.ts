// Checks the state fields: unique names, defaults of the declared type, reducers that fit the type.
import type { WorkflowDocument } from "../../schemas/workflow.schema.js";
import { type ProblemList, problem } from "./problem-list.js";
import type { TimeSlicer } from "./time-slicer.js";

export type StateField = WorkflowDocument["state"][number];

export interface StateFields {
  /** Name → field (the last one of a duplicated name). */
  byName: Map<string, StateField>;
  /** Name → its index in `state`, for problem paths. */
  index: Map<string, number>;
}

function typeFits(type: string, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "list":
      return Array.isArray(value);
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    default:
      return true;
  }
}

const REDUCER_TYPES: Record<string, string[]> = {
  append: ["list", "any"],
  merge: ["object", "any"],
  add: ["number", "any"],
};

export async function checkStateFields(
  document: WorkflowDocument,
  problems: ProblemList,
  slicer: TimeSlicer,
): Promise<StateFields> {
  const byName = new Map<string, StateField>();
  const index = new Map<string, number>();
  for (const [i, field] of document.state.entries()) {
    if (slicer.due()) await slicer.pause();
    if (byName.has(field.name)) problems.push(problem("DUPLICATE_STATE_FIELD", { path: `state.${i}.name` }));
    byName.set(field.name, field);
    index.set(field.name, i);
    if (field.default !== undefined && !typeFits(field.type, field.default)) {
      problems.push(problem("DEFAULT_TYPE_MISMATCH", { path: `state.${i}.default` }));
    }
    const allowed = field.reducer ? REDUCER_TYPES[field.reducer] : undefined;
    if (allowed && !allowed.includes(field.type)) {
      problems.push(
        problem(
          "REDUCER_TYPE_MISMATCH",
          { path: `state.${i}.reducer` },
          `${field.name}: ${field.reducer} does not fit ${field.type}.`,
        ),
      );
    }
  }
  return { byName, index };
}
