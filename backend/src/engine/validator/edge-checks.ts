// Checks the edges: unique ids, known ends, nothing into Start or out of End, and Start leading
// somewhere.
import type { WorkflowDocument } from "../../schemas/workflow.schema.js";
import type { GraphModel } from "./graph-model.js";
import { type ProblemList, problem } from "./problem-list.js";
import type { TimeSlicer } from "./time-slicer.js";

export async function checkEdges(
  document: WorkflowDocument,
  model: GraphModel,
  problems: ProblemList,
  slicer: TimeSlicer,
): Promise<void> {
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
}
