// Human: the run waits for a person's answer to a form; the answer is checked against the form.
import { interrupt } from "@langchain/langgraph";
import { AppError } from "../../core/errors.js";
import { renderText } from "../templates/template.js";
import type { TypedNode } from "../validator/validator.js";
import type { HumanData } from "./node-data.schema.js";
import type { Executor } from "./node-execution.js";

type HumanNode = Extract<TypedNode, { type: "human" }>;

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

export const executeHuman: Executor<HumanNode> = async ({ node, scope, ctx }) => {
  const request: HumanRequest = {
    // Inside a Subgraph the id carries its path, as in the node's events.
    node_id: ctx.nodePrefix + node.id,
    message: renderText(node.data.message, scope),
    fields: node.data.fields,
    timeout_seconds: node.data.timeout_seconds ?? null,
  };
  // The node runs again from the top when the run resumes; interrupt() then returns the answer.
  const answer = interrupt(request);
  const problems = checkHumanInput(node.data.fields, answer);
  if (problems.length > 0) throw new AppError("HUMAN_INPUT_INVALID", problems);
  return { [node.data.output_field]: answer };
};
