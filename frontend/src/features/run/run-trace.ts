// A run's trace as the panel and the canvas show it, built from the run's events in seq order.
// The trace is mutable and carries a revision: at hundreds of events a second, copying every list
// on every event costs more than the drawing. What changes gets a new object (a node's visit, a
// superstep), so a view that selects one of them re-renders only when it changed.
import type { EventError, HumanRequest, RunEvent, RunStatus } from "./run-types";

/** `stopped`: the run ended (failed, was cancelled, timed out) before this visit finished. */
export type VisitStatus = "running" | "ok" | "error" | "waiting" | "stopped";

/** One execution of a node: a superstep, and an iteration for loops and For each bodies. */
export interface NodeVisit {
  index: number;
  nodeId: string;
  nodeType: string | null;
  superstep: number;
  iteration: string;
  status: VisitStatus;
  startedAt: string;
  durationMs: number | null;
  output: Record<string, unknown> | null;
  error: EventError | null;
  /** LLM tokens as they streamed. */
  tokens: string;
  usage: { input_tokens: number; output_tokens: number } | null;
  reused: boolean;
  pinned: boolean;
  /** The label a Condition or Decision chose. */
  route: string | null;
  /** A For each iteration's item (its input); undefined for other visits. */
  item?: unknown;
}

/** A For each iteration's index in its list ("visit.index"), or null for a visit that is no iteration. */
export function iterationIndex(visit: NodeVisit): number | null {
  const [, index] = visit.iteration.split(".");
  return index === undefined ? null : Number(index);
}

export interface TraceSuperstep {
  superstep: number;
  /** Indexes into the trace's visits (grows in place; the step object is replaced when it does). */
  visits: number[];
}

export interface EdgeLike {
  id: string;
  source: string;
  target: string;
  label?: string;
}

export interface RunTrace {
  runId: string;
  status: RunStatus;
  /** Seq of the last event applied; an event at or below it is a repeat and is ignored. */
  lastSeq: number;
  revision: number;
  visits: NodeVisit[];
  supersteps: TraceSuperstep[];
  /** Each node's latest visit, the one the canvas shows. */
  latest: Map<string, NodeVisit>;
  takenEdges: Set<string>;
  waiting: HumanRequest | null;
  paused: string[] | null;
  error: EventError | null;
  output: Record<string, unknown> | null;
  finalState: Record<string, unknown> | null;
}

/** A run still queued or executing; every other status (ended, waiting, paused) has stopped for now. */
export function isRunActive(status: RunStatus): boolean {
  return status === "queued" || status === "running";
}

export function createTrace(runId: string, status: RunStatus = "queued"): RunTrace {
  return {
    runId,
    status,
    lastSeq: 0,
    revision: 0,
    visits: [],
    supersteps: [],
    latest: new Map(),
    takenEdges: new Set(),
    waiting: null,
    paused: null,
    error: null,
    output: null,
    finalState: null,
  };
}

const record = (value: unknown): Record<string, unknown> | null =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

// Running visits by node and iteration: a For each starts thousands before the first finishes, and
// searching the list for each would make a large run quadratic.
const openVisits = new WeakMap<RunTrace, Map<string, number>>();
const openKey = (nodeId: string, iteration: string) => `${nodeId}\u0000${iteration}`;

function openIndex(trace: RunTrace): Map<string, number> {
  let index = openVisits.get(trace);
  if (!index) {
    index = new Map();
    openVisits.set(trace, index);
  }
  return index;
}

function openVisit(trace: RunTrace, nodeId: string, iteration: string): NodeVisit | undefined {
  const at = openIndex(trace).get(openKey(nodeId, iteration));
  const visit = at === undefined ? undefined : trace.visits[at];
  return visit?.status === "running" ? visit : undefined;
}

function replaceVisit(trace: RunTrace, visit: NodeVisit, changes: Partial<NodeVisit>): NodeVisit {
  const next = { ...visit, ...changes };
  trace.visits[visit.index] = next;
  if (trace.latest.get(visit.nodeId)?.index === visit.index) trace.latest.set(visit.nodeId, next);
  return next;
}

function superstepOf(trace: RunTrace, superstep: number): TraceSuperstep {
  const last = trace.supersteps[trace.supersteps.length - 1];
  if (last && last.superstep === superstep) return last;
  // Usually the last one; the others only when events of an earlier step arrive late.
  const found = trace.supersteps.find((s) => s.superstep === superstep);
  if (found) return found;
  const created = { superstep, visits: [] };
  trace.supersteps.push(created);
  trace.supersteps.sort((a, b) => a.superstep - b.superstep);
  return created;
}

/**
 * Marks the edges that led to a node starting: from a node that finished in an earlier superstep,
 * by the label it chose; from Start, into the first superstep.
 */
function markTaken(trace: RunTrace, target: NodeVisit, incoming: readonly EdgeLike[], graph: TraceGraph): void {
  for (const edge of incoming) {
    if (graph.starts.has(edge.source)) {
      if (target.superstep === trace.supersteps[0]?.superstep) trace.takenEdges.add(edge.id);
      continue;
    }
    const source = trace.latest.get(edge.source);
    if (!source || source.status === "running" || source.superstep >= target.superstep) continue;
    if (source.route !== null && edge.label !== undefined && edge.label !== source.route) continue;
    trace.takenEdges.add(edge.id);
  }
}

export interface TraceGraph {
  /** Edges into each node, to light the ones a run takes. */
  incoming: ReadonlyMap<string, readonly EdgeLike[]>;
  /** Start and End are not nodes of the compiled graph: they send no events. */
  starts: ReadonlySet<string>;
  ends: ReadonlySet<string>;
}

export function traceGraph(
  edges: readonly EdgeLike[],
  nodes: readonly { id: string; type: string }[] = [],
): TraceGraph {
  const incoming = new Map<string, EdgeLike[]>();
  for (const edge of edges) {
    const list = incoming.get(edge.target) ?? [];
    list.push(edge);
    incoming.set(edge.target, list);
  }
  const ofType = (type: string) => new Set(nodes.filter((n) => n.type === type).map((n) => n.id));
  return { incoming, starts: ofType("start"), ends: ofType("end") };
}

/** At the end of a run that finished: the edges into End from the nodes that led there. */
function markEndings(trace: RunTrace, graph: TraceGraph): void {
  for (const end of graph.ends) {
    for (const edge of graph.incoming.get(end) ?? []) {
      const source = trace.latest.get(edge.source);
      if (source?.status !== "ok") continue;
      if (source.route !== null && edge.label !== undefined && edge.label !== source.route) continue;
      trace.takenEdges.add(edge.id);
    }
  }
}

/** Applies events (any order of arrival; repeats ignored). Returns whether anything changed. */
export function applyEvents(trace: RunTrace, events: readonly RunEvent[], graph?: TraceGraph): boolean {
  const fresh = events.filter((e) => e.run_id === trace.runId && e.seq > trace.lastSeq).sort((a, b) => a.seq - b.seq);
  let changed = false;
  for (const event of fresh) {
    if (event.seq <= trace.lastSeq) continue;
    trace.lastSeq = event.seq;
    applyEvent(trace, event, graph);
    changed = true;
  }
  if (changed) trace.revision++;
  return changed;
}

function applyEvent(trace: RunTrace, event: RunEvent, graph?: TraceGraph): void {
  const data = event.data ?? {};
  const nodeId = event.node_id;
  switch (event.type) {
    case "run_started":
      trace.status = "running";
      trace.waiting = null;
      trace.paused = null;
      return;
    case "node_started": {
      if (!nodeId) return;
      const superstep = event.superstep ?? 0;
      const iteration = String(data.iteration ?? "0");
      // A Human node starts again from the top when its run resumes: the same visit, running again.
      const asked = trace.latest.get(nodeId);
      if (asked?.status === "waiting" && asked.iteration === iteration) {
        replaceVisit(trace, asked, { status: "running" });
        return;
      }
      const visit: NodeVisit = {
        index: trace.visits.length,
        nodeId,
        nodeType: typeof data.node_type === "string" ? data.node_type : null,
        superstep,
        iteration,
        status: "running",
        startedAt: event.ts,
        durationMs: null,
        output: null,
        error: null,
        tokens: "",
        usage: null,
        reused: false,
        pinned: false,
        route: null,
        ...("item" in data ? { item: data.item } : {}),
      };
      trace.visits.push(visit);
      trace.latest.set(nodeId, visit);
      openIndex(trace).set(openKey(nodeId, iteration), visit.index);
      // The step's list grows in place (copying it per visit would be quadratic); the step object is new.
      const step = superstepOf(trace, superstep);
      step.visits.push(visit.index);
      trace.supersteps[trace.supersteps.indexOf(step)] = { ...step };
      const incoming = graph?.incoming.get(nodeId);
      if (incoming && graph) markTaken(trace, visit, incoming, graph);
      return;
    }
    case "node_token": {
      if (!nodeId) return;
      const visit = lastRunning(trace, nodeId);
      if (visit) replaceVisit(trace, visit, { tokens: visit.tokens + String(data.text ?? "") });
      return;
    }
    case "node_finished": {
      if (!nodeId) return;
      const visit = openVisit(trace, nodeId, String(data.iteration ?? "0")) ?? lastRunning(trace, nodeId);
      if (!visit) return;
      replaceVisit(trace, visit, {
        status: "ok",
        durationMs: typeof data.duration_ms === "number" ? data.duration_ms : null,
        output: record(data.output),
        reused: data.reused === true,
        pinned: data.pinned === true,
        route: typeof data.route === "string" ? data.route : null,
        usage: (record(data.usage) as NodeVisit["usage"]) ?? null,
      });
      return;
    }
    case "error": {
      const error = (record(data.error) as EventError | null) ?? { code: "INTERNAL", message: "" };
      if (nodeId) {
        // The iteration tells which of a For each's parallel visits failed.
        const iteration = typeof data.iteration === "string" ? data.iteration : null;
        const visit =
          (iteration !== null ? openVisit(trace, nodeId, iteration) : undefined) ?? lastRunning(trace, nodeId);
        if (visit) {
          const started = Date.parse(visit.startedAt);
          const ended = Date.parse(event.ts);
          const failed = replaceVisit(trace, visit, {
            status: "error",
            error,
            durationMs: Number.isFinite(ended - started) ? Math.max(0, ended - started) : null,
          });
          // The canvas shows the failure, not a later iteration the run's end cut short.
          trace.latest.set(nodeId, failed);
        }
      }
      trace.error = error;
      return;
    }
    case "run_waiting": {
      trace.status = "waiting";
      trace.waiting = data as unknown as HumanRequest;
      const visit = nodeId ? lastRunning(trace, nodeId) : undefined;
      if (visit) replaceVisit(trace, visit, { status: "waiting" });
      return;
    }
    case "run_paused":
      trace.status = "paused";
      trace.paused = Array.isArray(data.next) ? (data.next as string[]) : [];
      return;
    case "run_finished": {
      trace.status = (typeof data.status === "string" ? data.status : "ok") as RunStatus;
      trace.waiting = null;
      trace.paused = null;
      if (record(data.error)) trace.error = data.error as EventError;
      if (record(data.output)) trace.output = data.output as Record<string, unknown>;
      if (record(data.state)) trace.finalState = data.state as Record<string, unknown>;
      if (trace.status === "ok" && graph) markEndings(trace, graph);
      // A visit still open when the run ended (failed elsewhere, cancelled, timed out) did not finish.
      for (const visit of trace.visits)
        if (visit.status === "running" || visit.status === "waiting")
          replaceVisit(trace, visit, { status: trace.status === "ok" ? "ok" : "stopped" });
      return;
    }
  }
}

function lastRunning(trace: RunTrace, nodeId: string): NodeVisit | undefined {
  const latest = trace.latest.get(nodeId);
  if (latest && (latest.status === "running" || latest.status === "waiting")) return latest;
  for (let i = trace.visits.length - 1; i >= 0; i--) {
    const visit = trace.visits[i] as NodeVisit;
    if (visit.nodeId === nodeId && (visit.status === "running" || visit.status === "waiting")) return visit;
  }
  return undefined;
}

/** What the canvas shows on a node: its latest visit's status, `reused` and `pinned` apart, or skipped once the run ended without it. */
export type NodeBadge = VisitStatus | "reused" | "pinned" | "skipped";

export function nodeBadge(trace: RunTrace, nodeId: string, nodeType?: string): NodeBadge | null {
  const visit = trace.latest.get(nodeId);
  if (nodeType === "start") return trace.status === "queued" ? null : "ok";
  if (nodeType === "end") return trace.status === "ok" ? "ok" : null;
  if (!visit) return trace.status === "ok" ? "skipped" : null;
  return visitBadge(visit);
}

/** One visit's badge: an ok visit that was pinned or reused says so. */
export function visitBadge(visit: NodeVisit): NodeBadge {
  if (visit.status === "ok" && visit.pinned) return "pinned";
  if (visit.status === "ok" && visit.reused) return "reused";
  return visit.status;
}
