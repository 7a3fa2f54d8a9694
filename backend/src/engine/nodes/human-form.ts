// A Human node's form: what a waiting run asks for, and the check of a person's answer. No
// LangGraph here, so answering a waiting run is checked without loading the graph engine.
import type { HumanData } from "./node-data.schema.js";

export interface HumanRequest {
  node_id: string;
  message: string;
  fields: HumanData["fields"];
  timeout_seconds: number | null;
}

export interface FormProblem {
  field: string;
  message: string;
}

/** Problems with an answer to a form; empty when it fits. Unknown fields are refused. */
export function checkHumanInput(fields: HumanData["fields"], input: unknown): FormProblem[] {
  if (input === null || typeof input !== "object" || Array.isArray(input))
    return [{ field: "", message: "must be an object" }];
  const answer = input as Record<string, unknown>;
  const problems: FormProblem[] = [];
  const known = new Set(fields.map((f) => f.name));
  for (const key of Object.keys(answer))
    if (!known.has(key)) problems.push({ field: key, message: "is not a field of the form" });
  for (const field of fields) {
    const value = answer[field.name];
    if (value === undefined || value === null || value === "") {
      if (field.required) problems.push({ field: field.name, message: "is required" });
      continue;
    }
    const ok =
      field.type === "number"
        ? typeof value === "number" && Number.isFinite(value)
        : field.type === "boolean"
          ? typeof value === "boolean"
          : typeof value === "string" && (field.type !== "select" || !field.options || field.options.includes(value));
    if (!ok)
      problems.push({
        field: field.name,
        message:
          field.type === "select"
            ? "is not one of the options"
            : `must be a ${field.type === "text" ? "string" : field.type}`,
      });
  }
  return problems;
}
