// Checks the nodes one by one: unique ids, reserved names, one Start and one End at most, and
// data that matches the node's type (parsed into a typed node). Structured-answer schemas are
// compiled while the data is parsed, so their total size is budgeted per validation call first.
import type { WorkflowDocument } from "../../schemas/workflow.schema.js";
import { NODE_DATA } from "../nodes/node-data.schema.js";
import { answerSchemaCost, MAX_ANSWER_SCHEMA_NODES_PER_VALIDATION } from "../providers/answer-schema.js";
import type { GraphModel } from "./graph-model.js";
import { zodPath } from "./issue-path.js";
import { type ProblemList, problem } from "./problem-list.js";
import type { StateFields } from "./state-field-checks.js";
import type { TimeSlicer } from "./time-slicer.js";
import type { TypedNode } from "./validation-types.js";

/** The structured-answer schemas one validation call may still compile, in objects and arrays. */
export interface AnswerSchemaBudget {
  answerSchemaBudget: number;
}

/**
 * Whether a node's structured-answer schema fits what is left of the call's budget (and takes its
 * share). Charged whether or not the schema is compiled already, so the answer never depends on
 * what an earlier validation left in the cache.
 */
function chargeAnswerSchema(data: unknown, budget: AnswerSchemaBudget): boolean {
  const schema =
    data !== null && typeof data === "object" ? (data as { json_schema?: unknown }).json_schema : undefined;
  const cost = answerSchemaCost(schema);
  if (cost > budget.answerSchemaBudget) return false;
  budget.answerSchemaBudget -= cost;
  return true;
}

/** Node id → the node with its parsed data; a node whose data does not parse is left out. */
export async function checkNodes(
  document: WorkflowDocument,
  fields: StateFields,
  problems: ProblemList,
  slicer: TimeSlicer,
  budget: AnswerSchemaBudget,
): Promise<Map<string, TypedNode>> {
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
    if (fields.byName.has(node.id))
      problems.push(problem("NODE_ID_IS_STATE_FIELD", { node_id: node.id, path: `nodes.${i}.id` }));
    if (node.type === "llm" && !chargeAnswerSchema(node.data, budget)) {
      const path = `nodes.${i}.data.json_schema`;
      problems.push(
        problem(
          "NODE_DATA_INVALID",
          { node_id: node.id, path },
          `${path}: the structured-answer schemas of this workflow and its subgraphs hold more than ${MAX_ANSWER_SCHEMA_NODES_PER_VALIDATION.toLocaleString("en-US")} objects and arrays together; make them smaller or use fewer`,
        ),
      );
      continue;
    }
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
  return typed;
}

/** Adds the Start and End the document leaves implicit, so every later check sees them. */
export function addImplicitEnds(typed: Map<string, TypedNode>, model: GraphModel): void {
  for (const id of [model.startId, model.endId]) {
    if (!typed.has(id)) typed.set(id, { id, type: id === model.startId ? "start" : "end", data: {} } as TypedNode);
  }
}
