// A Join runs once per arrival of its inputs, however Joins nest or chain. It is a LangGraph
// deferred node: it runs once nothing else is scheduled, so every plain branch into it has
// finished by then. Two kinds of work can still be on the way to it at that moment: another Join
// deferred to the same superstep that leads to it (Joins feeding Joins), and the bodies of a For
// each that leads to it (LangGraph also releases deferred nodes when only For each bodies are
// left). So Joins and For each nodes record in a hidden channel whether they are pending, and a
// Join that pending work can still reach waits: it schedules itself again instead of running.
import type { ValidatedWorkflow } from "../validator/validator.js";

export interface JoinPlan {
  /** Join id → the Joins and For each nodes whose pending work can still reach it. */
  waitFor: Map<string, string[]>;
  /** Node id → the Joins its plain outgoing edges lead to (marked pending when it finishes). */
  joinTargets: Map<string, string[]>;
  /** Condition or Decision id → label → the Join that label leads to. */
  joinByLabel: Map<string, Map<string, string>>;
  /** The Joins Start leads to directly (pending from the first superstep). */
  joinsAfterStart: string[];
}

const ROUTERS = new Set(["condition", "decision"]);

/** Every node from which `to` can be reached, `to` itself excluded. */
function ancestors(workflow: ValidatedWorkflow, to: string): Set<string> {
  const seen = new Set<string>();
  const queue = [to];
  for (let i = 0; i < queue.length; i++) {
    for (const edge of workflow.model.incoming.get(queue[i] as string) ?? []) {
      if (edge.source === to || seen.has(edge.source)) continue;
      seen.add(edge.source);
      queue.push(edge.source);
    }
  }
  return seen;
}

export function planJoins(workflow: ValidatedWorkflow): JoinPlan {
  const { model, nodes } = workflow;
  const joins = [...nodes.values()].filter((n) => n.type === "join").map((n) => n.id);
  const plan: JoinPlan = { waitFor: new Map(), joinTargets: new Map(), joinByLabel: new Map(), joinsAfterStart: [] };
  if (joins.length === 0) return plan;
  const isJoin = new Set(joins);
  const order = new Map([...nodes.keys()].map((id, index) => [id, index]));
  const upstream = new Map(joins.map((id) => [id, ancestors(workflow, id)]));
  for (const join of joins) {
    const before = upstream.get(join) as Set<string>;
    const blockers = [...before].filter((id) => {
      const type = nodes.get(id)?.type;
      if (type === "for_each") return true;
      if (type !== "join") return false;
      // Two Joins on one loop reach each other: the one declared first goes first.
      const mutual = upstream.get(id)?.has(join) ?? false;
      return !mutual || (order.get(id) as number) < (order.get(join) as number);
    });
    plan.waitFor.set(join, blockers);
  }
  for (const node of nodes.values()) {
    const out = model.outgoing.get(node.id) ?? [];
    if (node.type === "start") {
      plan.joinsAfterStart = out.filter((e) => isJoin.has(e.target)).map((e) => e.target);
    } else if (ROUTERS.has(node.type)) {
      const byLabel = new Map(out.filter((e) => isJoin.has(e.target)).map((e) => [e.label ?? "", e.target]));
      if (byLabel.size > 0) plan.joinByLabel.set(node.id, byLabel);
    } else {
      // A For each's `done` edge is taken by its gather step, which marks that Join itself.
      const plain = out.filter((e) => isJoin.has(e.target) && !(node.type === "for_each" && e.label === "done"));
      if (plain.length > 0) plan.joinTargets.set(node.id, [...new Set(plain.map((e) => e.target))]);
    }
  }
  return plan;
}
