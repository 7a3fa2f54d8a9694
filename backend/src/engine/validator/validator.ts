// The workflow validator: everything that must hold before a document may run. It reports every
// problem it finds (one entry each), not only the first.
import type { z } from "zod";
import { VALIDATION_CATALOG } from "../../core/errors.js";
import type { WorkflowDocument } from "../../schemas/workflow.schema.js";
import { NODE_DATA } from "../nodes/node-data.schema.js";
import { findReferencesDeep, parseReference, TemplateError, wholeReferenceBody } from "../templates/template.js";
import { checkCredentials } from "./credential-check.js";
import { parseDocument } from "./document-parse.js";
import { buildGraphModel, reachableFrom, stronglyConnected } from "./graph-model.js";
import { findParallelWriters } from "./parallel-writes.js";
import { MAX_SUBGRAPH_PROBLEMS, ProblemList, problem } from "./problem-list.js";
import { type DocumentOutcome, MAX_SUBGRAPH_VALIDATIONS, ValidationRun } from "./validation-run.js";
import type { TypedNode, ValidatedWorkflow, ValidationEnvironment, ValidationResult } from "./validation-types.js";

export type { Problem } from "./problem-list.js";
export type {
  TypedNode,
  ValidatedWorkflow,
  ValidationEnvironment,
  ValidationResult,
  ValidationStats,
} from "./validation-types.js";

const ROUTERS = new Set(["condition", "decision", "for_each"]);
const LOOP_GUARDS = new Set(["condition", "for_each"]);
const FOR_EACH_BODY_TYPES = new Set(["llm", "tool", "code", "send_email", "subgraph"]);

function zodPath(prefix: string, issue: z.core.$ZodIssue): string {
  return [prefix, ...issue.path.map(String)].filter((s) => s !== "").join(".");
}

function typeFits(type: string, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "list":
      return Array.isArray(value);
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    default:
      return true;
  }
}

const REDUCER_TYPES: Record<string, string[]> = {
  append: ["list", "any"],
  merge: ["object", "any"],
  add: ["number", "any"],
};

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
function templatesOf(node: TypedNode): unknown {
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

/** Names listed in a LOOP_UNGUARDED message before the rest are only counted. */
const LOOP_NAMES_LISTED = 20;

function listNames(ids: string[]): string {
  const sorted = ids.slice().sort();
  if (sorted.length <= LOOP_NAMES_LISTED) return sorted.join(", ");
  return `${sorted.slice(0, LOOP_NAMES_LISTED).join(", ")} and ${sorted.length - LOOP_NAMES_LISTED} more`;
}

/**
 * Validates a workflow document. Work is near-linear in the size of the document (and of the
 * distinct child workflows it uses), and the event loop is given back every few milliseconds;
 * docs/en/validation.md states the bounds.
 */
export async function validateWorkflow(
  raw: unknown,
  env: ValidationEnvironment,
  lineage: { depth: number; chain: readonly string[] } = { depth: 0, chain: [] },
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
async function validateDocument(
  raw: unknown,
  run: ValidationRun,
  lineage: { depth: number; chain: readonly string[] },
): Promise<DocumentOutcome> {
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
      problems.push(
        problem(
          "DOCUMENT_SCHEMA",
          { path: zodPath("", issue) },
          `${zodPath("", issue) || "document"}: ${issue.message}`,
        ),
      );
    }
    return finish();
  }
  const document = parsed.data;
  const fields = new Map<string, WorkflowDocument["state"][number]>();
  const fieldIndex = new Map<string, number>();

  // State fields: unique names, defaults of the right type, reducers that fit.
  for (const [i, field] of document.state.entries()) {
    if (fields.has(field.name)) problems.push(problem("DUPLICATE_STATE_FIELD", { path: `state.${i}.name` }));
    fields.set(field.name, field);
    fieldIndex.set(field.name, i);
    if (field.default !== undefined && !typeFits(field.type, field.default)) {
      problems.push(problem("DEFAULT_TYPE_MISMATCH", { path: `state.${i}.default` }));
    }
    const allowed = field.reducer ? REDUCER_TYPES[field.reducer] : undefined;
    if (allowed && !allowed.includes(field.type)) {
      problems.push(
        problem(
          "REDUCER_TYPE_MISMATCH",
          { path: `state.${i}.reducer` },
          `${field.name}: ${field.reducer} does not fit ${field.type}.`,
        ),
      );
    }
  }

  // Nodes: unique ids, reserved names, data that matches the type.
  const typed = new Map<string, TypedNode>();
  const seenIds = new Set<string>();
  for (const [i, node] of document.nodes.entries()) {
    if (slicer.due()) await slicer.pause();
    if (seenIds.has(node.id)) problems.push(problem("DUPLICATE_NODE_ID", { node_id: node.id, path: `nodes.${i}.id` }));
    seenIds.add(node.id);
    // "__…" names are the studio's hidden channels and nodes; LangGraph also refuses names that
    // are properties of every object (constructor, toString, …).
    const reserved = node.id.startsWith("__") || node.id in Object.prototype;
    if (reserved || (node.id === "start" && node.type !== "start") || (node.id === "end" && node.type !== "end")) {
      problems.push(problem("RESERVED_NODE_ID", { node_id: node.id, path: `nodes.${i}.id` }));
    }
    if (fields.has(node.id))
      problems.push(problem("NODE_ID_IS_STATE_FIELD", { node_id: node.id, path: `nodes.${i}.id` }));
    const data = NODE_DATA[node.type].safeParse(node.data);
    if (!data.success) {
      for (const issue of data.error.issues) {
        const path = zodPath(`nodes.${i}.data`, issue);
        problems.push(problem("NODE_DATA_INVALID", { node_id: node.id, path }, `${path}: ${issue.message}`));
      }
      continue;
    }
    if (!typed.has(node.id)) typed.set(node.id, { id: node.id, type: node.type, data: data.data } as TypedNode);
  }
  const starts = document.nodes.filter((n) => n.type === "start");
  if (starts.length > 1) for (const n of starts.slice(1)) problems.push(problem("START_MULTIPLE", { node_id: n.id }));
  const ends = document.nodes.filter((n) => n.type === "end");
  if (ends.length > 1) for (const n of ends.slice(1)) problems.push(problem("END_MULTIPLE", { node_id: n.id }));

  const model = buildGraphModel(document);
  for (const id of [model.startId, model.endId]) {
    if (!typed.has(id)) typed.set(id, { id, type: id === model.startId ? "start" : "end", data: {} } as TypedNode);
  }

  // Edges: unique ids, known ends, nothing into Start or out of End.
  const edgeIds = new Set<string>();
  for (const [i, edge] of document.edges.entries()) {
    if (i % 256 === 0 && slicer.due()) await slicer.pause();
    if (edgeIds.has(edge.id)) problems.push(problem("DUPLICATE_EDGE_ID", { edge_id: edge.id, path: `edges.${i}.id` }));
    edgeIds.add(edge.id);
    if (!model.nodes.has(edge.source))
      problems.push(problem("EDGE_SOURCE_UNKNOWN", { edge_id: edge.id, path: `edges.${i}.source` }));
    if (!model.nodes.has(edge.target))
      problems.push(problem("EDGE_TARGET_UNKNOWN", { edge_id: edge.id, path: `edges.${i}.target` }));
    if (edge.target === model.startId)
      problems.push(problem("EDGE_INTO_START", { edge_id: edge.id, path: `edges.${i}.target` }));
    if (edge.source === model.endId)
      problems.push(problem("EDGE_OUT_OF_END", { edge_id: edge.id, path: `edges.${i}.source` }));
  }
  if ((model.outgoing.get(model.startId) ?? []).length === 0)
    problems.push(problem("START_MISSING", { node_id: model.startId }));
  await slicer.tick();

  // Every node reachable from Start.
  const reachable = reachableFrom(model, model.startId);
  for (const node of document.nodes) {
    if (!reachable.has(node.id) && node.type !== "start")
      problems.push(problem("NODE_UNREACHABLE", { node_id: node.id }));
  }

  // Every loop passes through a Condition or For each.
  const guard = (id: string) => LOOP_GUARDS.has(model.nodes.get(id)?.type ?? "");
  for (const component of stronglyConnected(model, (id) => !guard(id))) {
    const first = component[0] as string;
    const selfLoop = component.length === 1 && (model.outgoing.get(first) ?? []).some((e) => e.target === first);
    if (component.length > 1 || selfLoop) {
      problems.push(
        problem(
          "LOOP_UNGUARDED",
          { node_id: first },
          `${VALIDATION_CATALOG.LOOP_UNGUARDED} Nodes in the loop: ${listNames(component)}.`,
        ),
      );
    }
  }
  await slicer.tick();

  // Routing nodes: labelled, unique edges; Condition labels match; For each has item and done.
  const forEachBodies = new Map<string, string>();
  for (const node of typed.values()) {
    if (!ROUTERS.has(node.type)) continue;
    if (slicer.due()) await slicer.pause();
    const out = model.outgoing.get(node.id) ?? [];
    if (out.length === 0) {
      problems.push(problem("ROUTE_NEEDS_EDGES", { node_id: node.id }));
      continue;
    }
    const labels = new Set<string>();
    for (const edge of out) {
      if (!edge.label) {
        problems.push(problem("ROUTE_EDGE_UNLABELED", { node_id: node.id, edge_id: edge.id }));
        continue;
      }
      if (labels.has(edge.label))
        problems.push(problem("ROUTE_LABEL_DUPLICATE", { node_id: node.id, edge_id: edge.id }));
      labels.add(edge.label);
    }
    if (node.type === "condition") {
      const named = [...node.data.rules.map((r) => r.label), node.data.default_label];
      for (const label of new Set(named)) {
        if (!labels.has(label)) {
          problems.push(
            problem("CONDITION_LABEL_UNKNOWN", { node_id: node.id }, `No outgoing edge is labelled "${label}".`),
          );
        }
      }
    }
    if (node.type === "for_each") {
      const item = out.filter((e) => e.label === "item");
      const done = out.filter((e) => e.label === "done");
      if (item.length !== 1 || done.length !== 1 || out.length !== 2) {
        problems.push(problem("FOR_EACH_EDGES", { node_id: node.id }));
        continue;
      }
      const bodyId = (item[0] as { target: string }).target;
      const body = typed.get(bodyId);
      const bodyIn = model.incoming.get(bodyId) ?? [];
      const bodyOut = model.outgoing.get(bodyId) ?? [];
      if (!body || !FOR_EACH_BODY_TYPES.has(body.type) || bodyIn.length !== 1 || bodyOut.length !== 0) {
        problems.push(problem("FOR_EACH_BODY_INVALID", { node_id: bodyId }));
      } else {
        forEachBodies.set(node.id, bodyId);
      }
    }
  }
  for (const node of typed.values()) {
    if (node.type === "join" && (model.incoming.get(node.id) ?? []).length < 2) {
      problems.push(problem("JOIN_NEEDS_INPUTS", { node_id: node.id }));
    }
  }

  // References: well formed, naming declared fields; item/index only inside a For each body.
  const bodies = new Set(forEachBodies.values());
  const checkField = (name: string, node: TypedNode, path: string) => {
    if (!fields.has(name)) {
      problems.push(
        problem("STATE_REFERENCE_UNKNOWN", { node_id: node.id, path }, `"${name}" is not a declared state field.`),
      );
    }
  };
  for (const node of typed.values()) {
    if (slicer.due()) await slicer.pause();
    let references: ReturnType<typeof findReferencesDeep> = [];
    try {
      references = findReferencesDeep(templatesOf(node));
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      problems.push(
        problem("TEMPLATE_INVALID", { node_id: node.id }, `${VALIDATION_CATALOG.TEMPLATE_INVALID} (${error.message})`),
      );
    }
    for (const reference of references) {
      if (reference.root === "state" && reference.path[0]) checkField(reference.path[0], node, "data");
      if ((reference.root === "item" || reference.root === "index") && !bodies.has(node.id)) {
        problems.push(problem("ITEM_REFERENCE_OUTSIDE_FOR_EACH", { node_id: node.id }));
      }
    }
    for (const name of writesOf(node)) checkField(name, node, "data.output_field");
    if (node.type === "start") for (const name of node.data.inputs ?? []) checkField(name, node, "data.inputs");
    if (node.type === "end") for (const name of node.data.outputs ?? []) checkField(name, node, "data.outputs");
    if (node.type === "condition") {
      for (const rule of node.data.rules)
        for (const c of rule.conditions) checkField(c.field.split(".")[0] as string, node, "data.rules");
    }
    if (node.type === "for_each") {
      const reference = parseReference(wholeReferenceBody(node.data.items) ?? "");
      if (reference.root === "state") checkField(reference.path[0] as string, node, "data.items");
    }
  }

  // Parallel writes need a non-replace reducer.
  const writers = new Map<string, string[]>();
  for (const node of typed.values()) writers.set(node.id, writesOf(node));
  const replaceFields = new Set<string>();
  for (const field of fields.values()) if ((field.reducer ?? "replace") === "replace") replaceFields.add(field.name);
  const analysis = await findParallelWriters({ model, writes: writers, replaceFields, forEachBodies }, { slicer });
  run.parallelWriteOperations += analysis.operations;
  for (const clash of analysis.clashes) {
    const unproven = clash.approximate
      ? " (This graph has too many Join phases to check one by one, so every Join was assumed to run at once: the two may never actually run together.)"
      : "";
    problems.push(
      problem(
        "PARALLEL_WRITE_NEEDS_REDUCER",
        { node_id: clash.nodes[0], path: `state.${fieldIndex.get(clash.field)}.reducer` },
        `${clash.nodes.join(" and ")} can run in the same superstep and both write "${clash.field}": give it a reducer (append, merge or add).${unproven}`,
      ),
    );
  }

  // What this server can run.
  for (const node of typed.values()) {
    if (node.type === "code" && env.codeMode === "off") problems.push(problem("CODE_MODE_OFF", { node_id: node.id }));
    if (node.type === "tool" && node.data.kind === "python" && env.codeMode === "off") {
      problems.push(problem("CODE_MODE_OFF", { node_id: node.id }));
    }
    if (
      (node.type === "llm" || node.type === "decision") &&
      !node.data.credential_id &&
      env.serverKeyNeeded(node.data.provider, node.data.base_url)
    ) {
      const provider = env.providers[node.data.provider];
      if (!provider.configured) {
        problems.push(
          problem(
            "PROVIDER_NOT_CONFIGURED",
            { node_id: node.id },
            `Set ${provider.variable} to run ${node.data.provider} models.`,
          ),
        );
      }
    }
    if (node.type === "send_email" && !env.smtpConfigured && !node.data.credential_id)
      problems.push(problem("SMTP_NOT_CONFIGURED", { node_id: node.id }));
  }
  for (const found of await checkCredentials(typed.values(), env.credentialType)) problems.push(found);

  // Subgraphs: pinned versions that exist, within the depth limit, without cycles. Each child
  // version is fetched and validated once per call (see ValidationRun), however many nodes use it.
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
    if (lineage.depth + 1 > env.maxSubgraphDepth) {
      problems.push(problem("SUBGRAPH_DEPTH_EXCEEDED", { node_id: node.id }));
      continue;
    }
    const lookup = await run.child(id, version, lineage.depth + 1);
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

  return finish({ document, model, nodes: typed, subgraphs, forEachBodies });
}
