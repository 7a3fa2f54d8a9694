// Which nodes can run in the same superstep and write the same `replace` field. The analysis
// walks the supersteps the compiled LangGraph graph runs, one layer per superstep, from Start:
//
// - Every node active in a superstep carries a token label. A fan-out (a node that is not a
//   router, with edges to two or more distinct nodes) gives each target a fresh label; a router
//   (Condition, Decision, For each) passes its own label to each alternative, since only one of
//   them runs; a node reached in one superstep by two different labels runs once, under a fresh
//   label. So two distinct nodes active in one superstep with the same label never run together,
//   and two with different labels may: if both write a field, that is a clash.
// - A For each routes to its body (copies of it, one per item) or, for an empty list, straight to
//   its hidden gather step; the gather step writes the output field and continues along "done".
//   The body's own writes go to the gather step ("captured"), never to the state.
// - A Join is deferred: LangGraph runs it once nothing else is scheduled, together with every
//   other Join waiting then. So a reached Join is not followed in its own phase; the Joins reached
//   in one phase start the next phase (each with its own label), walked the same way. LangGraph
//   also releases waiting Joins in the superstep where For each bodies run when only the bodies
//   are scheduled: reached Joins may start right after any superstep with an active For each.
//
// A phase ends when nothing is active, when every candidate field has been reported, or
// `extraSteps` supersteps after the last superstep that reached a node for the first time (loops
// through routers repeat; the first phase of a graph without loops always ends by itself).
// Phases repeat once their set of Joins repeats. Every unit of work is counted: phases after the
// first stop when the count passes the budget, and one combined phase started from every reachable
// Join at once stands in for all later phases. That phase over-approximates (it may start Joins
// together that never wait together), so what it finds is reported as not proven safe.
import type { GraphModel } from "./graph-model.js";
import type { TimeSlicer } from "./time-slicer.js";

const ROUTERS = new Set(["condition", "decision", "for_each"]);

/** Work units after which later Join phases give way to the combined phase. */
export const PARALLEL_WRITE_BUDGET = 4_000_000;
/** Supersteps a phase keeps walking after it last reached a new node (as the older check did). */
export function extraSteps(nodeCount: number): number {
  return Math.min(2 * nodeCount + 2, 400);
}

export interface ParallelWrite {
  field: string;
  nodes: [string, string];
  /** Found by the combined Join phase: the nodes may never actually run together. */
  approximate: boolean;
}

export interface ParallelWriteAnalysis {
  /** At most one clash per field. */
  clashes: ParallelWrite[];
  /** Work units spent: node visits, edge offers, write checks, Join releases. */
  operations: number;
  phases: number;
  /** Whether the budget ran out and the combined Join phase was used. */
  approximate: boolean;
}

export interface ParallelWriteInput {
  model: GraphModel;
  /** The state fields each node writes. */
  writes: ReadonlyMap<string, readonly string[]>;
  /** Fields whose reducer is `replace`: the only ones a clash matters for. */
  replaceFields: ReadonlySet<string>;
  /** For each node id → its body node id (only well-formed For each nodes). */
  forEachBodies: ReadonlyMap<string, string>;
}

const PLAIN = 0;
const ROUTER = 1;
const JOIN = 2;
const FOR_EACH = 3;

/** The graph LangGraph runs, as arrays: model nodes plus one gather step per For each. */
interface RunGraph {
  size: number;
  names: string[];
  kind: Uint8Array;
  /** Successors of node v: targets[first[v] .. first[v + 1]), distinct. */
  first: Int32Array;
  targets: Int32Array;
  /** Candidate fields node v writes: fieldsOf[writeFirst[v] .. writeFirst[v + 1]). */
  writeFirst: Int32Array;
  fieldsOf: Int32Array;
  fields: string[];
  start: number;
}

function buildRunGraph(input: ParallelWriteInput): RunGraph | undefined {
  const { model, writes, replaceFields, forEachBodies } = input;
  const names = [...model.nodes.keys()];
  const indexOf = new Map<string, number>(names.map((id, i) => [id, i]));
  const gatherOf = new Map<string, number>();
  const bodyOwner = new Map<string, number>();
  for (const [forEachId, bodyId] of forEachBodies) {
    gatherOf.set(forEachId, names.length);
    bodyOwner.set(bodyId, names.length);
    names.push(forEachId);
  }
  const size = names.length;
  const kind = new Uint8Array(size);
  const successors: number[][] = [];
  const written: string[][] = [];
  for (let v = 0; v < size; v++) {
    const id = names[v] as string;
    const gather = v >= model.nodes.size;
    const node = gather ? undefined : model.nodes.get(id);
    let next: string[] = [];
    let fields: readonly string[] = [];
    if (gather) {
      // The gather step writes the For each's output field and goes on along "done".
      const done = model.outgoing.get(id)?.find((e) => e.label === "done");
      next = done ? [done.target] : [];
      fields = writes.get(id) ?? [];
    } else if (gatherOf.has(id)) {
      kind[v] = FOR_EACH;
      next = [forEachBodies.get(id) as string];
    } else if (bodyOwner.has(id)) {
      // A body's writes are captured; its copies hand over to the gather step.
    } else if (node?.type !== "end") {
      kind[v] = node && ROUTERS.has(node.type) ? ROUTER : node?.type === "join" ? JOIN : PLAIN;
      next = (model.outgoing.get(id) ?? []).map((e) => e.target);
      fields = writes.get(id) ?? [];
    }
    const targets = [...new Set(next.map((t) => indexOf.get(t)).filter((t) => t !== undefined))];
    if (kind[v] === FOR_EACH) targets.push(gatherOf.get(id) as number);
    if (bodyOwner.has(id)) targets.push(bodyOwner.get(id) as number);
    successors.push(targets);
    written.push(fields.filter((f) => replaceFields.has(f)));
  }

  // Only fields with two or more writers can clash.
  const writers = new Map<string, number>();
  for (const fields of written) for (const f of new Set(fields)) writers.set(f, (writers.get(f) ?? 0) + 1);
  const fields = [...writers].filter(([, count]) => count >= 2).map(([f]) => f);
  if (fields.length === 0) return undefined;
  const fieldIndex = new Map(fields.map((f, i) => [f, i]));

  const first = new Int32Array(size + 1);
  const writeFirst = new Int32Array(size + 1);
  const targets: number[] = [];
  const fieldsOf: number[] = [];
  for (let v = 0; v < size; v++) {
    first[v] = targets.length;
    for (const t of successors[v] as number[]) targets.push(t);
    writeFirst[v] = fieldsOf.length;
    for (const f of new Set(written[v])) {
      const i = fieldIndex.get(f);
      if (i !== undefined) fieldsOf.push(i);
    }
  }
  first[size] = targets.length;
  writeFirst[size] = fieldsOf.length;
  return {
    size,
    names,
    kind,
    first,
    targets: Int32Array.from(targets),
    writeFirst,
    fieldsOf: Int32Array.from(fieldsOf),
    fields,
    start: indexOf.get(model.startId) as number,
  };
}

/** Joins reachable from Start at all (walking through Joins): the roots of the combined phase. */
function reachableJoins(graph: RunGraph): number[] {
  const seen = new Uint8Array(graph.size);
  const queue = [graph.start];
  seen[graph.start] = 1;
  const joins: number[] = [];
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head] as number;
    if (graph.kind[v] === JOIN) joins.push(v);
    for (let e = graph.first[v] as number; e < (graph.first[v + 1] as number); e++) {
      const t = graph.targets[e] as number;
      if (!seen[t]) {
        seen[t] = 1;
        queue.push(t);
      }
    }
  }
  return joins;
}

/** The superstep-by-superstep walk of one phase at a time; state is kept across phases. */
class Walker {
  readonly #graph: RunGraph;
  readonly #horizon: number;
  operations = 0;
  /** Joins reached in the current phase, in the order reached. */
  pending: number[] = [];
  readonly clashes: ParallelWrite[] = [];
  unreported: number;
  #labels = 0;
  // Stamps instead of clearing arrays: step ids and phase ids are unique across phases.
  #stepId = 0;
  #phaseId = 0;
  #step = 0;
  #lastNew = 0;
  #approximate = false;
  readonly #seenIn: Int32Array;
  readonly #placedAt: Int32Array;
  readonly #mergedAt: Int32Array;
  readonly #slot: Int32Array;
  readonly #pendingIn: Int32Array;
  #current: Int32Array;
  #currentLabel: Int32Array;
  #next: Int32Array;
  #nextLabel: Int32Array;
  #nextLength = 0;
  readonly #fieldStep: Int32Array;
  readonly #fieldNode: Int32Array;
  readonly #fieldLabel: Int32Array;
  readonly #reported: Uint8Array;

  constructor(graph: RunGraph, horizon: number) {
    this.#graph = graph;
    this.#horizon = horizon;
    const size = graph.size;
    this.#seenIn = new Int32Array(size);
    this.#placedAt = new Int32Array(size);
    this.#mergedAt = new Int32Array(size);
    this.#slot = new Int32Array(size);
    this.#pendingIn = new Int32Array(size);
    this.#current = new Int32Array(size);
    this.#currentLabel = new Int32Array(size);
    this.#next = new Int32Array(size);
    this.#nextLabel = new Int32Array(size);
    const fields = graph.fields.length;
    this.#fieldStep = new Int32Array(fields);
    this.#fieldNode = new Int32Array(fields);
    this.#fieldLabel = new Int32Array(fields);
    this.#reported = new Uint8Array(fields);
    this.unreported = fields;
  }

  /** Starts a phase: each root runs in its superstep 0 under its own label. */
  begin(roots: readonly number[], approximate: boolean): void {
    this.#phaseId++;
    this.#stepId++;
    this.#step = 0;
    this.#lastNew = 0;
    this.#approximate = approximate;
    this.pending = [];
    this.#nextLength = 0;
    for (const root of roots) {
      this.#placedAt[root] = this.#stepId;
      this.#seenIn[root] = this.#phaseId;
      this.#next[this.#nextLength] = root;
      this.#nextLabel[this.#nextLength++] = ++this.#labels;
    }
  }

  /**
   * Runs one superstep: checks its writes, then works out the next one. False when the phase is
   * over (nothing left to run, every field reported, or past the horizon).
   */
  advance(): boolean {
    const { kind, first, targets, writeFirst, fieldsOf } = this.#graph;
    const placedAt = this.#placedAt;
    const mergedAt = this.#mergedAt;
    const slot = this.#slot;
    const seenIn = this.#seenIn;
    const pendingIn = this.#pendingIn;
    const phaseId = this.#phaseId;
    const current = this.#next;
    const currentLabel = this.#nextLabel;
    const length = this.#nextLength;
    const next = this.#current;
    const nextLabel = this.#currentLabel;
    this.#current = current;
    this.#currentLabel = currentLabel;
    this.#next = next;
    this.#nextLabel = nextLabel;
    if (length === 0) return false;
    let operations = this.operations;
    let stepId = ++this.#stepId;

    // Writes in this superstep: a field clashes when two writers carry different labels.
    const fieldStep = this.#fieldStep;
    const fieldNode = this.#fieldNode;
    const fieldLabel = this.#fieldLabel;
    const reported = this.#reported;
    for (let k = 0; k < length; k++) {
      const v = current[k] as number;
      const label = currentLabel[k] as number;
      operations++;
      const end = writeFirst[v + 1] as number;
      for (let w = writeFirst[v] as number; w < end; w++) {
        operations++;
        const f = fieldsOf[w] as number;
        if (reported[f]) continue;
        if (fieldStep[f] !== stepId) {
          fieldStep[f] = stepId;
          fieldNode[f] = v;
          fieldLabel[f] = label;
        } else if (fieldLabel[f] !== label) {
          reported[f] = 1;
          this.unreported--;
          const names = this.#graph.names;
          const pair = [names[fieldNode[f] as number], names[v]].sort() as [string, string];
          this.clashes.push({ field: this.#graph.fields[f] as string, nodes: pair, approximate: this.#approximate });
        }
      }
    }
    if (this.unreported === 0 || this.#step >= this.#lastNew + this.#horizon) {
      this.operations = operations;
      return false;
    }

    // The next superstep. A target is placed once; a second, different label merges.
    stepId = ++this.#stepId;
    const nextStep = this.#step + 1;
    let labels = this.#labels;
    let nextLength = 0;
    let lastNew = this.#lastNew;
    let forEachActive = false;
    for (let k = 0; k < length; k++) {
      const v = current[k] as number;
      const label = currentLabel[k] as number;
      const from = first[v] as number;
      const to = first[v + 1] as number;
      const type = kind[v];
      if (type === FOR_EACH) forEachActive = true;
      const fanOut = (type === PLAIN || type === JOIN) && to - from >= 2;
      for (let e = from; e < to; e++) {
        operations++;
        const t = targets[e] as number;
        const offered = fanOut ? ++labels : label;
        if (seenIn[t] !== phaseId) {
          seenIn[t] = phaseId;
          lastNew = nextStep;
        }
        if (kind[t] === JOIN) {
          // Deferred: it starts the next phase.
          if (pendingIn[t] !== phaseId) {
            pendingIn[t] = phaseId;
            this.pending.push(t);
          }
        } else if (placedAt[t] !== stepId) {
          placedAt[t] = stepId;
          slot[t] = nextLength;
          next[nextLength] = t;
          nextLabel[nextLength++] = offered;
        } else if (mergedAt[t] !== stepId && nextLabel[slot[t] as number] !== offered) {
          mergedAt[t] = stepId;
          nextLabel[slot[t] as number] = ++labels;
        }
      }
    }
    if (forEachActive) {
      // Waiting Joins may be released while only For each bodies are scheduled.
      for (const join of this.pending) {
        operations++;
        if (placedAt[join] !== stepId) {
          placedAt[join] = stepId;
          next[nextLength] = join;
          nextLabel[nextLength++] = ++labels;
        }
      }
    }
    this.#labels = labels;
    this.#nextLength = nextLength;
    this.#lastNew = lastNew;
    this.#step = nextStep;
    this.operations = operations;
    return true;
  }
}

export async function findParallelWriters(
  input: ParallelWriteInput,
  options: { slicer?: TimeSlicer; budget?: number } = {},
): Promise<ParallelWriteAnalysis> {
  const graph = buildRunGraph(input);
  if (!graph) return { clashes: [], operations: 0, phases: 0, approximate: false };
  const budget = options.budget ?? PARALLEL_WRITE_BUDGET;
  const slicer = options.slicer;
  const walker = new Walker(graph, extraSteps(input.model.nodes.size));

  /** Walks one phase; false when the budget stopped it. */
  const walk = async (roots: readonly number[], approximate: boolean, budgeted: boolean): Promise<boolean> => {
    walker.begin(roots, approximate);
    while (walker.advance()) {
      if (budgeted && walker.operations > budget) return false;
      if (slicer?.due()) await slicer.pause();
    }
    return true;
  };

  let phases = 1;
  let approximate = false;
  await walk([graph.start], false, false);
  const seenRootSets = new Set<string>();
  while (walker.unreported > 0 && walker.pending.length > 0) {
    const roots = walker.pending.slice().sort((a, b) => a - b);
    walker.operations += roots.length;
    const key = roots.join(",");
    if (seenRootSets.has(key)) break;
    seenRootSets.add(key);
    phases++;
    if (!(await walk(roots, false, true))) {
      approximate = true;
      phases++;
      await walk(reachableJoins(graph), true, false);
      break;
    }
  }
  return { clashes: walker.clashes, operations: walker.operations, phases, approximate };
}
