// LLM and Decision nodes call a chat model through the provider clients.
import { AppError } from "../../core/errors.js";
import { ROUTES_CHANNEL } from "../compiler/state-channels.js";
import { type ModelSettings, streamChat, structuredChat } from "../providers/chat-model.provider.js";
import type { RunContext } from "../runtime/run-context.js";
import { credentialFor } from "../runtime/run-credentials.js";
import { renderText } from "../templates/template.js";
import type { TypedNode } from "../validator/validator.js";
import type { Executor } from "./node-execution.js";

type LlmNode = Extract<TypedNode, { type: "llm" }>;
type DecisionNode = Extract<TypedNode, { type: "decision" }>;

/** The node's model settings, with its own key when it names a credential. */
function modelSettings(data: LlmNode["data"] | DecisionNode["data"], ctx: RunContext): ModelSettings {
  if (!data.credential_id) return data;
  const credential = credentialFor(ctx.credentials, data.credential_id, [data.provider]);
  return { ...data, apiKey: credential.data.api_key };
}

export const executeLlm: Executor<LlmNode> = async ({ node, scope, ctx, emitToken, reportUsage }) => {
  const data = node.data;
  const turn = {
    system: data.system ? renderText(data.system, scope) : undefined,
    prompt: renderText(data.prompt, scope),
  };
  if (data.json_schema) {
    const { value, usage } = await structuredChat(
      modelSettings(data, ctx),
      turn,
      data.json_schema,
      ctx.engine,
      ctx.signal,
    );
    reportUsage(usage);
    return { [data.output_field]: value };
  }
  const { text, usage } = await streamChat(modelSettings(data, ctx), turn, ctx.engine, emitToken, ctx.signal);
  reportUsage(usage);
  return { [data.output_field]: text };
};

/** The labels of a Decision are the labels of its outgoing edges, handed over by the compiler. */
export function makeDecisionExecutor(labels: string[]): Executor<DecisionNode> {
  return async ({ node, scope, ctx, reportUsage }) => {
    const data = node.data;
    const hints = labels.map((label) =>
      data.label_descriptions[label] ? `- ${label}: ${data.label_descriptions[label]}` : `- ${label}`,
    );
    const system = [
      data.system ? renderText(data.system, scope) : "",
      `Choose exactly one label from this list and give a short reason:\n${hints.join("\n")}`,
    ]
      .filter(Boolean)
      .join("\n\n");
    const schema = {
      type: "object",
      properties: { label: { type: "string", enum: labels }, reason: { type: "string" } },
      required: ["label", "reason"],
      additionalProperties: false,
    };
    const { value, usage } = await structuredChat(
      modelSettings(data, ctx),
      { system, prompt: renderText(data.prompt, scope) },
      schema,
      ctx.engine,
      ctx.signal,
    );
    reportUsage(usage);
    const label = value.label;
    if (typeof label !== "string" || !labels.includes(label)) {
      throw new AppError(
        "LLM_OUTPUT_INVALID",
        { label, allowed: labels },
        `The model chose "${String(label)}", which is not an outgoing label.`,
      );
    }
    const decision = { label, reason: typeof value.reason === "string" ? value.reason : "" };
    return { [ROUTES_CHANNEL]: { [node.id]: label }, ...(data.output_field ? { [data.output_field]: decision } : {}) };
  };
}
