// Human: the run waits for a person's answer to a form; the answer is checked against the form.
import { interrupt } from "@langchain/langgraph";
import { AppError } from "../../core/errors.js";
import { renderText } from "../templates/template.js";
import type { TypedNode } from "../validator/validator.js";
import { checkHumanInput, type HumanRequest } from "./human-form.js";
import type { Executor } from "./node-execution.js";

type HumanNode = Extract<TypedNode, { type: "human" }>;

// The form and its check need no LangGraph (resuming a run checks an answer before loading it).
export { checkHumanInput, type FormProblem, type HumanRequest } from "./human-form.js";

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
