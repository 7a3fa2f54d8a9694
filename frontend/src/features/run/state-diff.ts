// What each superstep changed in the state: the field, its value before and after, the reducer
// that combined the writes and the nodes that wrote it. Built from the checkpoints' states (what
// the run really had), with the writers taken from the trace's node outputs.
import type { NodeVisit, RunTrace } from "./run-trace";
import type { RunStep } from "./run-types";

export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
  reducer: string;
  writers: string[];
}

export interface SuperstepChanges {
  superstep: number;
  checkpointId: string | null;
  nodes: string[];
  changes: FieldChange[];
  /** The state after the superstep (null for a superstep that failed and wrote no checkpoint). */
  state: Record<string, unknown> | null;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function stateChanges(
  steps: readonly RunStep[],
  reducers: ReadonlyMap<string, string>,
  trace: RunTrace | null,
): SuperstepChanges[] {
  const writersIn = new Map<number, NodeVisit[]>();
  for (const visit of trace?.visits ?? []) {
    const list = writersIn.get(visit.superstep) ?? [];
    list.push(visit);
    writersIn.set(visit.superstep, list);
  }
  let previous: Record<string, unknown> = {};
  return steps.map((step) => {
    const state = step.state;
    const changes: FieldChange[] = [];
    if (state) {
      const fields = new Set([...Object.keys(previous), ...Object.keys(state)]);
      for (const field of fields) {
        if (same(previous[field], state[field])) continue;
        const writers = [
          ...new Set(
            (writersIn.get(step.superstep) ?? [])
              .filter((v) => v.output !== null && Object.hasOwn(v.output, field))
              .map((v) => v.nodeId),
          ),
        ];
        changes.push({
          field,
          before: previous[field],
          after: state[field],
          reducer: reducers.get(field) ?? "replace",
          writers,
        });
      }
      previous = state;
    }
    return {
      superstep: step.superstep,
      checkpointId: step.checkpoint_id,
      nodes: [...new Set(step.nodes.map((n) => n.node_id))],
      changes,
      state,
    };
  });
}
