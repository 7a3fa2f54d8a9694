// Checks the Subgraph nodes: pinned versions that exist, nesting within STUDIO_MAX_SUBGRAPH_DEPTH,
// no workflow inside itself, a valid child, and input/output mappings to fields the child has.
// Each child version is fetched and validated once per call (see ValidationRun), however many
// nodes use it.
import { VALIDATION_CATALOG } from "../../core/errors.js";
import { MAX_SUBGRAPH_PROBLEMS, type ProblemList, problem } from "./problem-list.js";
import { type DocumentOutcome, MAX_SUBGRAPH_VALIDATIONS, type ValidationRun } from "./validation-run.js";
import type { TypedNode, ValidatedWorkflow } from "./validation-types.js";

export interface Lineage {
  /** How many Subgraph levels the document being checked is below the top-level one. */
  depth: number;
  /** Workflow ids this document must not contain. */
  chain: readonly string[];
}

const levels = (n: number) => `${n} level${n === 1 ? "" : "s"}`;

/**
 * Returns Subgraph node id → its validated child workflow. Adds every workflow id the document
 * contains, at any depth explored, to `contains`.
 */
export async function checkSubgraphs(
  typed: Map<string, TypedNode>,
  run: ValidationRun,
  lineage: Lineage,
  problems: ProblemList,
  contains: Set<string>,
): Promise<Map<string, ValidatedWorkflow>> {
  const { env, slicer } = run;
  const subgraphs = new Map<string, ValidatedWorkflow>();
  const merged = new Set<DocumentOutcome>();
  for (const node of typed.values()) {
    if (node.type !== "subgraph") continue;
    if (slicer.due()) await slicer.pause();
    const { workflow_id: id, version } = node.data;
    contains.add(id);
    if (lineage.chain.includes(id)) {
      problems.push(problem("SUBGRAPH_CYCLE", { node_id: node.id }));
      continue;
    }
    const depth = lineage.depth + 1;
    if (depth > env.maxSubgraphDepth) {
      // Reported inside the child that goes too deep; its parents list it under their own
      // Subgraph node, prefixed with the path ("In subgraph a v1: In subgraph b v2: …").
      problems.push(
        problem(
          "SUBGRAPH_DEPTH_EXCEEDED",
          { node_id: node.id },
          `Subgraphs nest ${levels(depth)} here (${id} v${version} is level ${depth}); STUDIO_MAX_SUBGRAPH_DEPTH allows ${env.maxSubgraphDepth}.`,
        ),
      );
      continue;
    }
    const lookup = await run.child(id, version, depth);
    if (lookup.kind === "not_found") {
      problems.push(problem("SUBGRAPH_NOT_FOUND", { node_id: node.id }));
      continue;
    }
    if (lookup.kind === "limit_reached") {
      problems.push(
        problem(
          "SUBGRAPH_LIMIT_EXCEEDED",
          { node_id: node.id },
          `${VALIDATION_CATALOG.SUBGRAPH_LIMIT_EXCEEDED} The limit is ${MAX_SUBGRAPH_VALIDATIONS}; ${id} v${version} was not checked.`,
        ),
      );
      continue;
    }
    const child = lookup.outcome;
    if (!merged.has(child)) {
      merged.add(child);
      for (const inner of child.contains) contains.add(inner);
    }
    const again = [id, ...lineage.chain].find((name) => child.contains.has(name));
    if (again !== undefined) {
      problems.push(
        problem(
          "SUBGRAPH_CYCLE",
          { node_id: node.id },
          `In subgraph ${id} v${version}: a Subgraph inside it uses ${again} again. ${VALIDATION_CATALOG.SUBGRAPH_CYCLE}`,
        ),
      );
      continue;
    }
    const result = child.result;
    if (!result.ok) {
      const prefix = `In subgraph ${id} v${version}: `;
      const listed = result.problems.filter((p) => p.code !== "PROBLEMS_TRUNCATED").slice(0, MAX_SUBGRAPH_PROBLEMS);
      for (const inner of listed) problems.push({ ...inner, node_id: node.id, message: `${prefix}${inner.message}` });
      if (child.total > listed.length)
        problems.pushTruncated(child.total - listed.length, { node_id: node.id }, prefix);
      continue;
    }
    const childFields = new Set(result.workflow.document.state.map((f) => f.name));
    for (const name of [...Object.keys(node.data.input), ...Object.values(node.data.output)]) {
      if (!childFields.has(name)) {
        problems.push(
          problem("SUBGRAPH_FIELD_UNKNOWN", { node_id: node.id }, `The child workflow has no state field "${name}".`),
        );
      }
    }
    subgraphs.set(node.id, result.workflow);
  }
  return subgraphs;
}
