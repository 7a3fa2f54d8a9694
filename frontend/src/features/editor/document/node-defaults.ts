// The settings a node starts with when it is added from the palette: the required settings with
// sensible values or left empty for the person to fill in (the validator names what is missing).
import type { NodeType } from "./document-types.js";

const MODEL = { provider: "openai", model: "gpt-4o-mini" };

export function defaultNodeData(type: NodeType): Record<string, unknown> {
  switch (type) {
    case "llm":
      return { ...MODEL, prompt: "", output_field: "" };
    case "decision":
      return { ...MODEL, prompt: "" };
    case "tool":
      return { kind: "http", method: "GET", url: "", output_field: "" };
    case "code":
      return { language: "javascript", code: "function main(state) {\n  return {};\n}\n" };
    case "condition":
      return { rules: [], default_label: "else" };
    case "for_each":
      return { items: "", output_field: "" };
    case "human":
      return { message: "", fields: [], output_field: "" };
    case "send_email":
      return { to: "", subject: "", body: "" };
    case "subgraph":
      return { workflow_id: "", version: 1 };
    default:
      return {};
  }
}
