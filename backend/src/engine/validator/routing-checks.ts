// Checks the routing nodes: Condition, Decision and For each have labelled, unique outgoing
// edges; a Condition's labels have edges; a For each has one `item` edge to a valid body and one
// `done` edge; a Join has two inputs or more.
import type { GraphModel } from "./graph-model.js";
import { type ProblemList, problem } from "./problem-list.js";
import type { TimeSlicer } from "./time-slicer.js";
import type { TypedNode } from "./validation-types.js";

const ROUTERS = new Set(["condition", "decision", "for_each"]);
const FOR_EACH_BODY_TYPES = new Set(["llm", "tool", "code", "send_email", "subgraph"]);

/** Returns For each node id → its body node id, for the For each nodes whose edges are valid. */
export async function checkRouting(
  typed: Map<string, TypedNode>,
  model: GraphModel,
  problems: ProblemList,
  slicer: TimeSlicer,
): Promise<Map<string, string>> {
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
  let seen = 0;
  for (const node of typed.values()) {
    if (++seen % 256 === 0 && slicer.due()) await slicer.pause();
    if (node.type === "join" && (model.incoming.get(node.id) ?? []).length < 2) {
      problems.push(problem("JOIN_NEEDS_INPUTS", { node_id: node.id }));
    }
  }
  return forEachBodies;
}
