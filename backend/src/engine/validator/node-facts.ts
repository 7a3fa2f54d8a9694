// What each node type writes to the state and where its data may hold {{…}} references, as far
// as can be known before running it.
import { findReferencesDeep } from "../templates/template.js";
import type { TypedNode } from "./validation-types.js";

/** The state fields a node writes, as far as can be known before running it. */
export function writesOf(node: TypedNode): string[] {
  switch (node.type) {
    case "llm":
    case "tool":
    case "for_each":
    case "human":
      return [node.data.output_field];
    case "decision":
    case "send_email":
      return node.data.output_field ? [node.data.output_field] : [];
    case "code":
      return node.data.outputs ?? [];
    case "subgraph":
      return Object.keys(node.data.output);
    default:
      return [];
  }
}

/** The parts of a node's data that may hold {{…}} references. */
export function templatesOf(node: TypedNode): unknown {
  switch (node.type) {
    case "llm":
    case "decision":
      return [node.data.system ?? "", node.data.prompt];
    case "tool":
      return node.data.kind === "http" ? [node.data.url, node.data.headers, node.data.body ?? null] : [node.data.args];
    case "human":
      return [node.data.message];
    case "send_email":
      return [node.data.to, node.data.cc ?? "", node.data.subject, node.data.body, node.data.from ?? ""];
    case "subgraph":
      return [node.data.input];
    case "for_each":
      return [node.data.items];
    case "condition":
      return node.data.rules.map((rule) => rule.conditions.map((c) => c.value ?? null));
    default:
      return [];
  }
}

/**
 * The state fields a node's settings read through {{state.…}}; `null` when a setting reads the
 * whole state ({{state}}). Only what the settings name: a Code node's body reads what it likes.
 */
export function stateReadsOf(node: TypedNode): string[] | null {
  const fields = new Set<string>();
  for (const reference of findReferencesDeep(templatesOf(node))) {
    if (reference.root !== "state") continue;
    const [field] = reference.path;
    if (field === undefined) return null;
    fields.add(field);
  }
  return [...fields];
}
