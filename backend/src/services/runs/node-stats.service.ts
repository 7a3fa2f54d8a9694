// Per-node figures over a workflow's newest runs, for the heat-map overlay on the editor canvas:
// how many runs a node ran in, its median and p95 time, how often it failed, and its LLM tokens.
// Read from the runs' stored events with a budget: a workflow whose runs loop thousands of times
// is counted over fewer runs (runs_counted, truncated) rather than read without end.
import { type Actor, assertOwned } from "../../core/authz.js";
import type { RunStatsRepository } from "../../repositories/run-stats.repository.js";
import type { WorkflowRepository } from "../../repositories/workflow.repository.js";
import type { NodeStatsView } from "../../schemas/run-list.schema.js";

/** At most this many node events are read for one answer. */
export const NODE_STATS_EVENT_BUDGET = 50_000;

interface Tally {
  runs: Set<string>;
  errorRuns: Set<string>;
  durations: number[];
  inputTokens: number;
  outputTokens: number;
}

/** The middle value (the mean of the two middle ones for an even count); null for none. */
export function median(sorted: number[]): number | null {
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The nearest-rank percentile: the smallest value with at least p% of the values at or below it. */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

export class NodeStatsService {
  readonly #stats: RunStatsRepository;
  readonly #workflows: WorkflowRepository;
  readonly #eventBudget: number;

  constructor(deps: { stats: RunStatsRepository; workflows: WorkflowRepository; eventBudget?: number }) {
    this.#stats = deps.stats;
    this.#workflows = deps.workflows;
    this.#eventBudget = deps.eventBudget ?? NODE_STATS_EVENT_BUDGET;
  }

  async forWorkflow(actor: Actor, workflowId: string, runs: number): Promise<NodeStatsView> {
    assertOwned(await this.#workflows.findById(workflowId), actor, "WORKFLOW_NOT_FOUND");
    const newest = await this.#stats.newestStartedRuns(actor.userId, workflowId, runs);
    const counts = await this.#stats.countNodeEvents(newest);
    // Newest first, as many whole runs as the budget holds.
    const counted: string[] = [];
    let events = 0;
    for (const id of newest) {
      const n = counts.get(id) ?? 0;
      if (events + n > this.#eventBudget) break;
      events += n;
      counted.push(id);
    }
    const tallies = new Map<string, Tally>();
    const tallyOf = (nodeId: string) => {
      let tally = tallies.get(nodeId);
      if (!tally) {
        tally = { runs: new Set(), errorRuns: new Set(), durations: [], inputTokens: 0, outputTokens: 0 };
        tallies.set(nodeId, tally);
      }
      return tally;
    };
    for (const event of await this.#stats.nodeEvents(counted)) {
      const tally = tallyOf(event.node_id);
      if (event.type === "node_started") tally.runs.add(event.run_id);
      else if (event.type === "error") tally.errorRuns.add(event.run_id);
      else {
        const data = JSON.parse(event.data) as {
          duration_ms?: unknown;
          usage?: { input_tokens?: unknown; output_tokens?: unknown };
        };
        if (typeof data.duration_ms === "number") tally.durations.push(data.duration_ms);
        if (typeof data.usage?.input_tokens === "number") tally.inputTokens += data.usage.input_tokens;
        if (typeof data.usage?.output_tokens === "number") tally.outputTokens += data.usage.output_tokens;
      }
    }
    const nodes = [...tallies.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([nodeId, tally]) => {
        const sorted = tally.durations.sort((a, b) => a - b);
        // A node that failed before node_started was recorded still ran in that run.
        const runCount = new Set([...tally.runs, ...tally.errorRuns]).size;
        return {
          node_id: nodeId,
          runs: runCount,
          executions: sorted.length,
          error_runs: tally.errorRuns.size,
          error_rate: runCount === 0 ? 0 : tally.errorRuns.size / runCount,
          median_ms: median(sorted),
          p95_ms: percentile(sorted, 95),
          input_tokens: tally.inputTokens,
          output_tokens: tally.outputTokens,
          avg_input_tokens: runCount === 0 ? 0 : tally.inputTokens / runCount,
          avg_output_tokens: runCount === 0 ? 0 : tally.outputTokens / runCount,
        };
      });
    return {
      workflow_id: workflowId,
      runs_requested: runs,
      runs_counted: counted.length,
      truncated: counted.length < newest.length,
      nodes,
    };
  }
}
