// The workflow validator: everything that must hold before a document may run. It reports every
// problem it finds (one entry each), not only the first. Each concern is checked in its own
// module (*-checks.ts); this one runs them in order over one document and its children.
import { checkCapabilities } from "./capability-checks.js";
import { parseDocument } from "./document-parse.js";
import { checkEdges } from "./edge-checks.js";
import { buildGraphModel } from "./graph-model.js";
import { checkLoops, checkReachable } from "./graph-shape-checks.js";
import { checkImportedDocument } from "./imported-checks.js";
import { zodPath } from "./issue-path.js";
import { addImplicitEnds, checkNodes } from "./node-checks.js";
import { checkParallelWrites } from "./parallel-write-checks.js";
import { ProblemList, problem } from "./problem-list.js";
import { checkReferences } from "./reference-checks.js";
import { checkRouting } from "./routing-checks.js";
import { checkStateFields } from "./state-field-checks.js";
import { checkSubgraphs, type Lineage } from "./subgraph-checks.js";
import { type DocumentOutcome, ValidationRun } from "./validation-run.js";
import type { ValidatedWorkflow, ValidationEnvironment, ValidationResult } from "./validation-types.js";

export { writesOf } from "./node-facts.js";
export type { Problem } from "./problem-list.js";
export type {
  TypedNode,
  ValidatedWorkflow,
  ValidationEnvironment,
  ValidationResult,
  ValidationStats,
} from "./validation-types.js";

/**
 * Validates a workflow document. Work is near-linear in the size of the document (and of the
 * distinct child workflows it uses), and the event loop is given back every few milliseconds;
 * docs/en/validation.md states the bounds.
 */
export async function validateWorkflow(
  raw: unknown,
  env: ValidationEnvironment,
  lineage: Lineage = { depth: 0, chain: [] },
): Promise<ValidationResult> {
  const run = new ValidationRun(env, validateDocument);
  const outcome = await validateDocument(raw, run, lineage);
  return { ...outcome.result, stats: run.stats };
}

/**
 * One document of a validation call. `lineage.chain` holds the workflow ids this document must
 * not contain: the caller's (for the top level) or its own (for a child, validated once however
 * many parents use it; each parent checks the child's `contains` against its own chain).
 */
async function validateDocument(raw: unknown, run: ValidationRun, lineage: Lineage): Promise<DocumentOutcome> {
  const { env, slicer } = run;
  const problems = new ProblemList();
  const contains = new Set<string>();
  const finish = (workflow?: ValidatedWorkflow): DocumentOutcome => ({
    result: workflow && problems.total === 0 ? { ok: true, workflow } : { ok: false, problems: problems.toArray() },
    contains,
    total: problems.total,
  });

  const parsed = await parseDocument(raw, slicer);
  if (!parsed.success) {
    for (const issue of parsed.issues) {
      const path = zodPath("", issue);
      problems.push(problem("DOCUMENT_SCHEMA", { path }, `${path || "document"}: ${issue.message}`));
    }
    return finish();
  }
  const document = parsed.data;
  if (document.imported) {
    // The repository's graph, run in the import sandbox: its structure only (imported-checks.ts).
    const model = buildGraphModel(document);
    const nodes = checkImportedDocument(document, problems);
    await slicer.tick();
    return finish({ document, model, nodes, subgraphs: new Map(), forEachBodies: new Map() });
  }
  const fields = await checkStateFields(document, problems, slicer);
  const nodes = await checkNodes(document, fields, problems, slicer, run);
  const model = buildGraphModel(document);
  addImplicitEnds(nodes, model);
  await checkEdges(document, model, problems, slicer);
  await checkReachable(document, model, problems, slicer);
  await checkLoops(model, problems, slicer);
  const forEachBodies = await checkRouting(nodes, model, problems, slicer);
  await checkReferences(nodes, fields, forEachBodies, problems, slicer);
  run.parallelWriteOperations += await checkParallelWrites(nodes, fields, model, forEachBodies, problems, slicer);
  await checkCapabilities(nodes, env, problems, slicer);
  const subgraphs = await checkSubgraphs(nodes, run, lineage, problems, contains);
  return finish({ document, model, nodes, subgraphs, forEachBodies });
}
