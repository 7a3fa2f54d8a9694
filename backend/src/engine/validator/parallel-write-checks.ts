// Checks that a state field two nodes may write in the same superstep has a reducer other than
// `replace` (the analysis itself is in parallel-writes.ts).
import type { GraphModel } from "./graph-model.js";
import { writesOf } from "./node-facts.js";
import { findParallelWriters } from "./parallel-writes.js";
import { type ProblemList, problem } from "./problem-list.js";
import type { StateFields } from "./state-field-checks.js";
import type { TimeSlicer } from "./time-slicer.js";
import type { TypedNode } from "./validation-types.js";

/** Returns the work units the analysis spent, for the validation's stats. */
export async function checkParallelWrites(
  typed: Map<string, TypedNode>,
  fields: StateFields,
  model: GraphModel,
  forEachBodies: Map<string, string>,
  problems: ProblemList,
  slicer: TimeSlicer,
): Promise<number> {
  const writers = new Map<string, string[]>();
  for (const node of typed.values()) {
    if (writers.size % 256 === 0 && slicer.due()) await slicer.pause();
    writers.set(node.id, writesOf(node));
  }
  const replaceFields = new Set<string>();
  for (const field of fields.byName.values())
    if ((field.reducer ?? "replace") === "replace") replaceFields.add(field.name);
  const analysis = await findParallelWriters({ model, writes: writers, replaceFields, forEachBodies }, { slicer });
  for (const clash of analysis.clashes) {
    const unproven = clash.approximate
      ? " (This graph has too many Join phases to check one by one, so every Join was assumed to run at once: the two may never actually run together.)"
      : "";
    problems.push(
      problem(
        "PARALLEL_WRITE_NEEDS_REDUCER",
        { node_id: clash.nodes[0], path: `state.${fields.index.get(clash.field)}.reducer` },
        `${clash.nodes.join(" and ")} can run in the same superstep and both write "${clash.field}": give it a reducer (append, merge or add).${unproven}`,
      ),
    );
  }
  return analysis.operations;
}
