import type { Problem } from "../engine/validator/validator.js";

export function formatProblems(problems: Problem[]): string {
  return problems
    .map((p) => {
      const where = [p.node_id && `node ${p.node_id}`, p.edge_id && `edge ${p.edge_id}`, p.path && `at ${p.path}`]
        .filter(Boolean)
        .join(", ");
      return `  ✗ ${p.code}${where ? ` (${where})` : ""}: ${p.message}`;
    })
    .join("\n");
}
