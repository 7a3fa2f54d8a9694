// The workflow validator: everything that must hold before a document may run. It reports every
// problem it finds (one entry each), not only the first.
import type { z } from "zod";
import { VALIDATION_CATALOG, type ValidationCode } from "../../core/errors.js";
import { type WorkflowDocument, workflowDocument } from "../../schemas/workflow.schema.js";
import { NODE_DATA, type NodeDataMap } from "../nodes/node-data.schema.js";
import type { CredentialTypeLookup } from "../runtime/ports.js";
import { findReferencesDeep, parseReference, TemplateError } from "../templates/template.js";
import { checkCredentials } from "./credential-check.js";
import { buildGraphModel, type GraphModel, reachableFrom, stronglyConnected } from "./graph-model.js";
import { findParallelWriters } from "./parallel-writes.js";

export interface Problem {
  code: ValidationCode;
  message: string;
  node_id?: string;
  edge_id?: string;
  path?: string;
}

export interface ValidationEnvironment {
  codeMode: "wasm" | "off";
  /** Whether a key (or base URL) is configured for each provider, and the variable to set. */
  providers: Record<"openai" | "anthropic", { configured: boolean; variable: string }>;
  /** Whether a node without a credential would use the server's key for this endpoint. */
  serverKeyNeeded(provider: "openai" | "anthropic", baseUrl: string | undefined): boolean;
  smtpConfigured: boolean;
  maxSubgraphDepth: number;
  /** The type of one of the caller's stored credentials, or undefined. */
  credentialType: CredentialTypeLookup;
  /** Loads a saved workflow version the caller may use, or undefined. */
  resolveWorkflow(id: string, version: number): Promise<unknown | undefined>;
}

export type TypedNode = { [K in keyof NodeDataMap]: { id: string; type: K; data: NodeDataMap[K] } }[keyof NodeDataMap];

export interface ValidatedWorkflow {
  document: WorkflowDocument;
  model: GraphModel;
  /** Every node (synthetic start/end included) with its parsed data. */
  nodes: Map<string, TypedNode>;
  /** Subgraph node id → the validated child workflow. */
  subgraphs: Map<string, ValidatedWorkflow>;
  /** For each node id → its body node id. */
  forEachBodies: Map<string, string>;
}

export type ValidationResult = { ok: true; workflow: ValidatedWorkflow } | { ok: false; problems: Problem[] };

const ROUTERS = new Set(["condition", "decision", "for_each"]);
const LOOP_GUARDS = new Set(["condition", "for_each"]);
const FOR_EACH_BODY_TYPES = new Set(["llm", "tool", "code", "send_email", "subgraph"]);

function problem(code: ValidationCode, where: Omit<Problem, "code" | "message"> = {}, message?: string): Problem {
  return { code, message: message ?? VALIDATION_CATALOG[code], ...where };
}

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

export async function validateWorkflow(
  raw: unknown,
  env: ValidationEnvironment,
  lineage: { depth: number; chain: string[] } = { depth: 0, chain: [] },
): Promise<ValidationResult> {
  const parsed = workflowDocument.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.map((issue) =>
        problem(
          "DOCUMENT_SCHEMA",
          { path: zodPath("", issue) },
          `${zodPath("", issue) || "document"}: ${issue.message}`,
        ),
      ),
    };
  }
  const document = parsed.data;
  const problems: Problem[] = [];
  const fields = new Map<string, WorkflowDocument["state"][number]>();

  // State fields: unique names, defaults of the right type, reducers that fit.
  document.state.forEach((field, i) => {
    if (fields.has(field.name)) problems.push(problem("DUPLICATE_STATE_FIELD", { path: `state.${i}.name` }));
    fields.set(field.name, field);
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
  });

  // Nodes: unique ids, reserved names, data that matches the type.
  const typed = new Map<string, TypedNode>();
  const seenIds = new Set<string>();
  document.nodes.forEach((node, i) => {
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
      return;
    }
    if (!typed.has(node.id)) typed.set(node.id, { id: node.id, type: node.type, data: data.data } as TypedNode);
  });
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
  document.edges.forEach((edge, i) => {
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
  });
  if ((model.outgoing.get(model.startId) ?? []).length === 0)
    problems.push(problem("START_MISSING", { node_id: model.startId }));

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
          `${VALIDATION_CATALOG.LOOP_UNGUARDED} Nodes in the loop: ${component.sort().join(", ")}.`,
        ),
      );
    }
  }

  // Routing nodes: labelled, unique edges; Condition labels match; For each has item and done.
  const forEachBodies = new Map<string, string>();
  for (const node of typed.values()) {
    if (!ROUTERS.has(node.type)) continue;
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
      const reference = parseReference(node.data.items.replace(/^\{\{\s*|\s*\}\}$/g, ""));
      if (reference.root === "state") checkField(reference.path[0] as string, node, "data.items");
    }
  }

  // Parallel writes need a non-replace reducer.
  const writers = new Map<string, string[]>();
  for (const node of typed.values()) writers.set(node.id, writesOf(node));
  for (const clash of findParallelWriters(model, writers, bodies)) {
    const field = fields.get(clash.field);
    if (field && (field.reducer ?? "replace") === "replace") {
      problems.push(
        problem(
          "PARALLEL_WRITE_NEEDS_REDUCER",
          { node_id: clash.nodes[0], path: `state.${document.state.indexOf(field)}.reducer` },
          `${clash.nodes.join(" and ")} can run in the same superstep and both write "${clash.field}": give it a reducer (append, merge or add).`,
        ),
      );
    }
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
  problems.push(...(await checkCredentials(typed.values(), env.credentialType)));

  // Subgraphs: pinned versions that exist, within the depth limit, without cycles.
  const subgraphs = new Map<string, ValidatedWorkflow>();
  for (const node of typed.values()) {
    if (node.type !== "subgraph") continue;
    const { workflow_id: id, version } = node.data;
    if (lineage.chain.includes(id)) {
      problems.push(problem("SUBGRAPH_CYCLE", { node_id: node.id }));
      continue;
    }
    if (lineage.depth + 1 > env.maxSubgraphDepth) {
      problems.push(problem("SUBGRAPH_DEPTH_EXCEEDED", { node_id: node.id }));
      continue;
    }
    const child = await env.resolveWorkflow(id, version);
    if (child === undefined) {
      problems.push(problem("SUBGRAPH_NOT_FOUND", { node_id: node.id }));
      continue;
    }
    const result = await validateWorkflow(child, env, { depth: lineage.depth + 1, chain: [...lineage.chain, id] });
    if (!result.ok) {
      for (const inner of result.problems) {
        problems.push({ ...inner, node_id: node.id, message: `In subgraph ${id} v${version}: ${inner.message}` });
      }
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

  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, workflow: { document, model, nodes: typed, subgraphs, forEachBodies } };
}
