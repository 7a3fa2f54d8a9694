// Nodes that can run in the same superstep and write the same `replace` field: LangGraph refuses
// that at run time (INVALID_CONCURRENT_GRAPH_UPDATE). The analysis is the validator's own
// (backend/src/engine/validator/parallel-writes.ts, pure), fed from the document as it is being
// edited, so the state editor flags exactly what the validator will report on save.
import {
  buildGraphModel,
  factsOf,
  fieldMentions,
  findParallelWriters,
  type ParallelWrite,
  type WorkflowDocument,
} from "../document";

export type { ParallelWrite };

/** For each node → its body, when the For each is well formed (one `item` edge to a node that has
 * no other way in and no way out), as the validator's routing check accepts it. */
function wellFormedBodies(document: WorkflowDocument, model: ReturnType<typeof buildGraphModel>) {
  const bodies = new Map<string, string>();
  for (const node of document.nodes) {
    if (node.type !== "for_each") continue;
    const out = model.outgoing.get(node.id) ?? [];
    const item = out.filter((e) => e.label === "item");
    const done = out.filter((e) => e.label === "done");
    if (item.length !== 1 || done.length !== 1 || out.length !== 2) continue;
    const bodyId = (item[0] as { target: string }).target;
    const body = model.nodes.get(bodyId);
    if (
      !body ||
      !factsOf(body.type)?.forEachBody ||
      (model.incoming.get(bodyId) ?? []).length !== 1 ||
      (model.outgoing.get(bodyId) ?? []).length !== 0
    )
      continue;
    bodies.set(node.id, bodyId);
  }
  return bodies;
}

/** Every `replace` field two nodes may write in one superstep (at most one pair per field). */
export async function parallelWrites(document: WorkflowDocument): Promise<ParallelWrite[]> {
  const replaceFields = new Set(
    document.state.filter((f) => (f.reducer ?? "replace") === "replace").map((f) => f.name),
  );
  if (replaceFields.size === 0) return [];
  const model = buildGraphModel(document);
  const writes = new Map<string, string[]>();
  for (const node of document.nodes)
    writes.set(
      node.id,
      fieldMentions(node.type, node.data)
        .filter((m) => m.writes)
        .map((m) => m.name),
    );
  const analysis = await findParallelWriters({
    model,
    writes,
    replaceFields,
    forEachBodies: wellFormedBodies(document, model),
  });
  return analysis.clashes;
}
