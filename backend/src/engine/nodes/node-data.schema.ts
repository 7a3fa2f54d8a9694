// The data schema of every node type. The workflow document keeps `data` open; the validator
// parses each node's data with the schema of its type.
import { z } from "zod";
import { answerSchemaProblem } from "../providers/answer-schema.js";

const fieldName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, { message: "must name a state field" });
const label = z.string().trim().min(1).max(100);
const text = (max: number) => z.string().max(max);
const common = { label: label.optional(), description: text(2000).optional() };

export const startData = z.strictObject({
  ...common,
  /** State fields a run's input may set; all of them when absent. */
  inputs: z.array(fieldName).max(200).optional(),
});

export const endData = z.strictObject({
  ...common,
  /** State fields returned as the run's output; all of them when absent. */
  outputs: z.array(fieldName).max(200).optional(),
});

export const PROVIDERS = ["openai", "anthropic"] as const;
/** A stored credential of the workflow owner, by id. */
const credentialId = z.string().min(1).max(100);
const modelSettings = {
  provider: z.enum(PROVIDERS).default("openai"),
  model: z.string().trim().min(1).max(200),
  /** An OpenAI-compatible server (Ollama, vLLM, LM Studio); overrides OPENAI_BASE_URL. */
  base_url: z.url({ protocol: /^https?$/ }).optional(),
  /** The user's own key for the provider (an `openai` or `anthropic` credential). */
  credential_id: credentialId.optional(),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().min(1).max(200_000).optional(),
};

export const llmData = z.strictObject({
  ...common,
  ...modelSettings,
  system: text(50_000).optional(),
  prompt: text(100_000).min(1),
  /** JSON Schema (2020-12) of a structured answer; the parsed object is written to output_field. */
  json_schema: z
    .record(z.string(), z.unknown())
    .superRefine((schema, ctx) => {
      const problem = answerSchemaProblem(schema);
      if (problem) ctx.addIssue({ code: "custom", message: `the schema ${problem}` });
    })
    .optional(),
  output_field: fieldName,
});

const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"] as const;
export const toolData = z.discriminatedUnion("kind", [
  z.strictObject({
    ...common,
    kind: z.literal("http"),
    method: z.enum(HTTP_METHODS).default("GET"),
    url: text(4000).min(1),
    headers: z.record(z.string().regex(/^[A-Za-z0-9-]{1,100}$/), text(8000)).default({}),
    body: z.unknown().optional(),
    /** Authentication from a stored credential (http_bearer, http_basic or http_header). */
    credential_id: credentialId.optional(),
    timeout_ms: z.number().int().min(100).max(300_000).default(30_000),
    max_response_bytes: z
      .number()
      .int()
      .min(1)
      .max(50 * 1024 * 1024)
      .default(1024 * 1024),
    output_field: fieldName,
  }),
  z.strictObject({
    ...common,
    kind: z.literal("python"),
    /** Defines `main(args, idempotency_key)`; its return value goes to output_field. */
    code: text(200_000).min(1),
    args: z.record(z.string(), z.unknown()).default({}),
    output_field: fieldName,
  }),
]);

export const codeData = z.strictObject({
  ...common,
  language: z.enum(["javascript", "python"]),
  /** Defines `main(state)`, which returns a partial state update. */
  code: text(200_000).min(1),
  /** The state fields main() may return; when set, other keys fail the node. */
  outputs: z.array(fieldName).max(200).optional(),
});

export const CONDITION_OPERATORS = [
  "equals",
  "not_equals",
  "gt",
  "gte",
  "lt",
  "lte",
  "contains",
  "not_contains",
  "starts_with",
  "ends_with",
  "in",
  "not_in",
  "is_empty",
  "is_not_empty",
  "is_true",
  "is_false",
] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export const conditionData = z.strictObject({
  ...common,
  rules: z
    .array(
      z.strictObject({
        label,
        combinator: z.enum(["and", "or"]).default("and"),
        conditions: z
          .array(
            z.strictObject({
              /** A state path such as `score` or `user.age`. */
              field: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*(\.(?:[A-Za-z_][A-Za-z0-9_-]*|\d+))*$/, {
                message: "must be a state path such as user.age",
              }),
              operator: z.enum(CONDITION_OPERATORS),
              value: z.unknown().optional(),
            }),
          )
          .min(1)
          .max(50),
      }),
    )
    .max(50),
  default_label: label,
});

export const decisionData = z.strictObject({
  ...common,
  ...modelSettings,
  system: text(50_000).optional(),
  /** What to decide; the model picks one outgoing edge label and gives a reason. */
  prompt: text(100_000).min(1),
  /** Optional hints shown to the model for each label. */
  label_descriptions: z.record(z.string(), text(2000)).default({}),
  /** Where to write {label, reason}; optional. */
  output_field: fieldName.optional(),
});

export const forEachData = z.strictObject({
  ...common,
  /** A whole-value reference to a list, e.g. {{state.documents}}. */
  items: z.string().regex(/^\{\{\s*(state|context)(\.[A-Za-z0-9_-]+)+\s*\}\}$/, {
    message: "must be one reference to a list, e.g. {{state.items}}",
  }),
  /** The list of per-item results, in item order. */
  output_field: fieldName,
  max_items: z.number().int().min(1).max(10_000).default(1000),
});

export const joinData = z.strictObject({ ...common });

const FORM_TYPES = ["string", "text", "number", "boolean", "select"] as const;
export const humanData = z.strictObject({
  ...common,
  message: text(20_000).min(1),
  fields: z
    .array(
      z.strictObject({
        name: fieldName,
        type: z.enum(FORM_TYPES).default("string"),
        label: label.optional(),
        required: z.boolean().default(false),
        options: z.array(z.string().max(200)).max(100).optional(),
      }),
    )
    .max(50)
    .default([]),
  /** The submitted form (an object) is written here. */
  output_field: fieldName,
  /** After this many seconds without an answer the run becomes `expired`. */
  timeout_seconds: z
    .number()
    .int()
    .min(1)
    .max(365 * 24 * 3600)
    .optional(),
});
export type HumanData = z.infer<typeof humanData>;

export const sendEmailData = z.strictObject({
  ...common,
  to: text(4000).min(1),
  cc: text(4000).optional(),
  subject: text(1000).min(1),
  body: text(200_000),
  html: z.boolean().default(false),
  from: text(400).optional(),
  /** The user's own SMTP server (an `smtp` credential) instead of STUDIO_SMTP_URL. */
  credential_id: credentialId.optional(),
  /** Where to write {message_id, accepted}; optional. */
  output_field: fieldName.optional(),
});

export const subgraphData = z.strictObject({
  ...common,
  workflow_id: z.string().min(1).max(100),
  version: z.number().int().min(1),
  /** Child state field → value (templates over the parent's state). */
  input: z.record(fieldName, z.unknown()).default({}),
  /** Parent state field → child state field, copied back when the child finishes. */
  output: z.record(fieldName, fieldName).default({}),
});

export const NODE_DATA = {
  start: startData,
  end: endData,
  llm: llmData,
  tool: toolData,
  code: codeData,
  condition: conditionData,
  decision: decisionData,
  for_each: forEachData,
  join: joinData,
  human: humanData,
  send_email: sendEmailData,
  subgraph: subgraphData,
} as const;

export type NodeDataMap = { [K in keyof typeof NODE_DATA]: z.infer<(typeof NODE_DATA)[K]> };
