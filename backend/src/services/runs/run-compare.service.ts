// Two runs of one workflow side by side, for the runs page: their input, output and final state
// field by field, and what each did at each node (status, time, output, error, tokens), read from
// their stored node events (not their token stream) with a budget per run.

import type { Actor } from "../../core/authz.js";
import { canonicalJson } from "../../core/canonical-json.js";
import { AppError } from "../../core/errors.js";
import type { RunRow } from "../../models/database.model.js";
import type { RunRepository } from "../../repositories/run.repository.js";
import type { NodeEventRow, RunStatsRepository } from "../../repositories/run-stats.repository.js";
import type { ComparedNodeView, RunCompareView } from "../../schemas/run-list.schema.js";

/** At most this many node events are read of each run compared. */
export const COMPARE_EVENT_BUDGET = 10_000;

function parse(text: string | null): unknown {
  return text === null ? null : JSON.parse(text);
}

/** Per node, in the order the run first reached them. */
function nodesOf(events: NodeEventRow[]): Map<string, ComparedNodeView> {
  const nodes = new Map<string, ComparedNodeView>();
  for (const event of events) {
    let node = nodes.get(event.node_id);
    if (!node) {
      node = {
        status: "started",
        executions: 0,
        duration_ms: 0,
        reused: false,
        output: null,
        error: null,
        input_tokens: 0,
        output_tokens: 0,
      };
      nodes.set(event.node_id, node);
    }
    const data = JSON.parse(event.data) as Record<string, unknown>;
    if (event.type === "node_started") {
      if (node.status !== "error") node.status = "started";
    } else if (event.type === "error") {
      node.status = "error";
      node.error = data.error ?? null;
    } else {
      node.status = node.status === "error" ? "error" : "ok";
      node.executions++;
      if (typeof data.duration_ms === "number") node.duration_ms += data.duration_ms;
      if (data.reused === true) node.reused = true;
      node.output = data.output ?? null;
      const usage = data.usage as { input_tokens?: unknown; output_tokens?: unknown } | undefined;
      if (typeof usage?.input_tokens === "number") node.input_tokens += usage.input_tokens;
      if (typeof usage?.output_tokens === "number") node.output_tokens += usage.output_tokens;
    }
  }
  return nodes;
}

function runSide(row: RunRow, truncated: boolean): RunCompareView["a"] {
  const error = parse(row.error) as { code?: unknown } | null;
  return {
    id: row.id,
    workflow_version: row.workflow_version,
    status: row.status,
    trigger: row.trigger,
    error_code: typeof error?.code === "string" ? error.code : null,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    duration_ms:
      row.started_at !== null && row.finished_at !== null
        ? Date.parse(row.finished_at) - Date.parse(row.started_at)
        : null,
    input: parse(row.input),
    output: parse(row.output),
    truncated,
  };
}

export class RunCompareService {
  readonly #runs: RunRepository;
  readonly #stats: RunStatsRepository;
  readonly #eventBudget: number;

  constructor(deps: { runs: RunRepository; stats: RunStatsRepository; eventBudget?: number }) {
    this.#runs = deps.runs;
    this.#stats = deps.stats;
    this.#eventBudget = deps.eventBudget ?? COMPARE_EVENT_BUDGET;
  }

  async compare(actor: Actor, aId: string, bId: string): Promise<RunCompareView> {
    // One after the other: when both are refused, the answer names `a`, every time.
    const a = await this.#owned(actor, aId);
    const b = await this.#owned(actor, bId);
    // Runs of an unsaved document have no workflow: they are compared with nothing.
    if (a.workflow_id === null || a.workflow_id !== b.workflow_id) {
      throw new AppError("RUNS_NOT_COMPARABLE", { a_workflow_id: a.workflow_id, b_workflow_id: b.workflow_id });
    }
    const [aEvents, bEvents] = await Promise.all([
      this.#stats.nodeEventsOfRun(a.id, this.#eventBudget + 1),
      this.#stats.nodeEventsOfRun(b.id, this.#eventBudget + 1),
    ]);
    const aNodes = nodesOf(aEvents.slice(0, this.#eventBudget));
    const bNodes = nodesOf(bEvents.slice(0, this.#eventBudget));
    const aState = (parse(a.state) ?? {}) as Record<string, unknown>;
    const bState = (parse(b.state) ?? {}) as Record<string, unknown>;
    const fields = [...new Set([...Object.keys(aState), ...Object.keys(bState)])].sort();
    return {
      workflow_id: a.workflow_id,
      a: runSide(a, aEvents.length > this.#eventBudget),
      b: runSide(b, bEvents.length > this.#eventBudget),
      state: fields.map((field) => {
        const av = aState[field] ?? null;
        const bv = bState[field] ?? null;
        return { field, a: av, b: bv, equal: canonicalJson(av) === canonicalJson(bv) };
      }),
      nodes: [...new Set([...aNodes.keys(), ...bNodes.keys()])].map((nodeId) => ({
        node_id: nodeId,
        a: aNodes.get(nodeId) ?? null,
        b: bNodes.get(nodeId) ?? null,
      })),
    };
  }

  async #owned(actor: Actor, id: string): Promise<RunRow> {
    const run = await this.#runs.findById(id);
    if (!run || run.owner_id !== actor.userId) throw new AppError("RUN_NOT_FOUND", { run_id: id });
    return run;
  }
}
