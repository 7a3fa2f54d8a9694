// Checks the shape of the graph: every node reachable from Start, every loop guarded by a
// Condition or a For each.
import { VALIDATION_CATALOG } from "../../core/errors.js";
import type { WorkflowDocument } from "../../schemas/workflow.schema.js";
import { type GraphModel, reachableFrom, stronglyConnected } from "./graph-model.js";
import { type ProblemList, problem } from "./problem-list.js";
import type { TimeSlicer } from "./time-slicer.js";

const LOOP_GUARDS = new Set(["condition", "for_each"]);

/** Names listed in a LOOP_UNGUARDED message before the rest are only counted. */
const LOOP_NAMES_LISTED = 20;

function listNames(ids: string[]): string {
  const sorted = ids.slice().sort();
  if (sorted.length <= LOOP_NAMES_LISTED) return sorted.join(", ");
  return `${sorted.slice(0, LOOP_NAMES_LISTED).join(", ")} and ${sorted.length - LOOP_NAMES_LISTED} more`;
}

export async function checkReachable(
  document: WorkflowDocument,
  model: GraphModel,
  problems: ProblemList,
  slicer: TimeSlicer,
): Promise<void> {
  const reachable = reachableFrom(model, model.startId);
  for (const [i, node] of document.nodes.entries()) {
    if (i % 256 === 0 && slicer.due()) await slicer.pause();
    if (!reachable.has(node.id) && node.type !== "start")
      problems.push(problem("NODE_UNREACHABLE", { node_id: node.id }));
  }
}

export async function checkLoops(model: GraphModel, problems: ProblemList, slicer: TimeSlicer): Promise<void> {
  const guard = (id: string) => LOOP_GUARDS.has(model.nodes.get(id)?.type ?? "");
  for (const component of stronglyConnected(model, (id) => !guard(id))) {
    if (slicer.due()) await slicer.pause();
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
}
