// One node of every type (two for Tool) whose settings use every place a reference or a state
// field can go. Shared by the node-type tests.
import type { NodeDataMap } from "../src/engine/nodes/node-data.schema.js";

type Sample = { [K in keyof NodeDataMap]: { type: K; data: unknown } }[keyof NodeDataMap];

export const NODE_SAMPLES: Sample[] = [
  { type: "start", data: { label: "Begin", inputs: ["question", "user"] } },
  { type: "end", data: { outputs: ["answer"] } },
  {
    type: "llm",
    data: {
      model: "gpt-4o-mini",
      system: "You help {{context.tenant}}",
      prompt: "Answer {{state.question}} for {{ state.user.name }}",
      output_field: "answer",
    },
  },
  {
    type: "tool",
    data: {
      kind: "http",
      method: "POST",
      url: "https://example.com/{{state.user.id}}",
      headers: { "X-Tenant": "{{context.tenant}}" },
      body: { q: "{{state.question}}", nested: ["{{state.user}}", 3] },
      output_field: "response",
    },
  },
  {
    type: "tool",
    data: {
      kind: "python",
      code: "def main(args, key):\n  return 1",
      args: { a: "{{state.question}}" },
      output_field: "n",
    },
  },
  { type: "code", data: { language: "javascript", code: "function main(s){return {n:1}}", outputs: ["n", "answer"] } },
  {
    type: "condition",
    data: {
      rules: [
        {
          label: "big",
          conditions: [
            { field: "user.age", operator: "gte", value: "{{state.limit}}" },
            { field: "n", operator: "is_true" },
          ],
        },
        { label: " small ", conditions: [{ field: "question", operator: "in", value: ["{{state.options}}", "x"] }] },
      ],
      default_label: "other",
    },
  },
  {
    type: "decision",
    data: {
      model: "gpt-4o-mini",
      system: "{{state.rules}}",
      prompt: "Pick for {{state.question}}",
      label_descriptions: { yes: "when it fits", no: "otherwise" },
      output_field: "choice",
    },
  },
  { type: "for_each", data: { items: "{{state.documents}}", output_field: "summaries" } },
  { type: "join", data: {} },
  {
    type: "human",
    data: { message: "Approve {{state.answer}}?", fields: [{ name: "ok", type: "boolean" }], output_field: "approval" },
  },
  {
    type: "send_email",
    data: {
      to: "{{state.email}}",
      cc: "{{context.cc}}",
      subject: "About {{state.question}}",
      body: "{{state.answer}}",
      from: "bot@example.com",
      output_field: "sent",
    },
  },
  {
    type: "subgraph",
    data: { workflow_id: "wf_1", version: 2, input: { q: "{{state.question}}", n: 3 }, output: { answer: "result" } },
  },
];
