// The job processor: takes a run by its lease, loads it, runs the engine with the database
// checkpointer and ledger (both fenced by the lease), and reports events and the ending.
import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { EngineConfig } from "../../core/config.js";
import type { Logger } from "../../core/logging.js";
import { toEventError } from "../../engine/compiler/node-function.js";
import type { StudioEvent } from "../../engine/runtime/events.js";
import type { RunOptions, RunOutcome } from "../../engine/runtime/runtime.js";
import { runStream } from "../../engine/runtime/runtime.js";
import type { Database, RunRow } from "../../models/database.model.js";
import { DatabaseCheckpointSaver } from "../../repositories/checkpoint.saver.js";
import type { NodeResultRepository } from "../../repositories/node-result.repository.js";
import type { RunEventInput, RunRepository } from "../../repositories/run.repository.js";
import type { RunBus } from "./run-bus.js";

const LEASE_TTL_MS = 5 * 60 * 1000;
const TERMINAL = new Set(["ok", "error", "cancelled", "timeout", "expired"]);

export interface ExecutorDeps {
  db: Kysely<Database>;
  runs: RunRepository;
  nodeResults: NodeResultRepository;
  engine: EngineConfig;
  bus: RunBus;
  logger: Logger;
  resolverFor(ownerId: string): NonNullable<RunOptions["resolveWorkflow"]>;
  /** Opens the owner's stored credentials for the run (only theirs). */
  credentialsFor(ownerId: string): NonNullable<RunOptions["credentials"]>;
  /** Called when a run reaches a final status (callbacks). */
  onEnded(runId: string): void;
}

function eventRow(event: StudioEvent): RunEventInput {
  return {
    seq: event.seq,
    type: event.type,
    node_id: event.node_id ?? null,
    superstep: event.superstep ?? null,
    ts: event.ts,
    data: JSON.stringify(event.data),
  };
}

function metricsOf(events: StudioEvent[], outcome: RunOutcome, startedAt: number) {
  const count = (type: string) => events.filter((e) => e.type === type).length;
  return {
    duration_ms: Date.now() - startedAt,
    supersteps: outcome.supersteps,
    nodes_finished: count("node_finished"),
    nodes_reused: events.filter((e) => e.type === "node_finished" && e.data.reused === true).length,
    tokens_streamed: count("node_token"),
    llm_tokens: events.reduce(
      (sum, e) => {
        const usage = e.data.usage as { input_tokens: number; output_tokens: number } | undefined;
        return usage ? { input: sum.input + usage.input_tokens, output: sum.output + usage.output_tokens } : sum;
      },
      { input: 0, output: 0 },
    ),
  };
}

export class RunExecutor {
  readonly #deps: ExecutorDeps;
  readonly #workerId = `worker-${randomUUID()}`;
  readonly #running = new Map<string, AbortController>();

  constructor(deps: ExecutorDeps) {
    this.#deps = deps;
  }

  /** Stops a run this process is executing (cancel); true when it was running here. */
  abort(runId: string): boolean {
    const controller = this.#running.get(runId);
    controller?.abort();
    return controller !== undefined;
  }

  async execute(runId: string): Promise<void> {
    const { runs, nodeResults, db, engine, bus, logger } = this.#deps;
    const run = await runs.lease(runId, this.#workerId, LEASE_TTL_MS);
    if (!run) return;
    const controller = new AbortController();
    this.#running.set(runId, controller);
    const startedAt = Date.now();
    const events: StudioEvent[] = [];
    let leaseLost = false;
    try {
      const checkpointer = new DatabaseCheckpointSaver(db, { fence: { runId, leaseGen: run.lease_gen } });
      const resume = await this.#resumeOf(run, checkpointer);
      const generator = runStream(JSON.parse(run.document), resume ? null : JSON.parse(run.input), {
        engine,
        runId,
        mode: run.mode === "step" ? "step" : "full",
        resume,
        checkpointer,
        ledger: nodeResults.ledgerFor(runId),
        context: JSON.parse(run.context) as Record<string, unknown>,
        signal: controller.signal,
        attempt: run.attempt,
        firstSeq: run.next_seq,
        resolveWorkflow: this.#deps.resolverFor(run.owner_id),
        credentials: this.#deps.credentialsFor(run.owner_id),
        workflowId: run.workflow_id ?? undefined,
        onEvent: async (event) => {
          events.push(event);
          if (leaseLost) return;
          if (!(await runs.appendEvents(runId, run.lease_gen, [eventRow(event)]))) {
            leaseLost = true;
            controller.abort();
            return;
          }
          bus.publish(event);
        },
      });
      let next = await generator.next();
      while (!next.done) next = await generator.next();
      const outcome = next.value;
      if (leaseLost) return;
      const ended = await runs.end(runId, run.lease_gen, {
        status: outcome.status,
        state: JSON.stringify(outcome.state),
        output: JSON.stringify(outcome.output),
        error: outcome.error ? JSON.stringify(outcome.error) : null,
        waiting: outcome.waiting ? JSON.stringify(outcome.waiting) : null,
        expiresAt: outcome.waiting?.expires_at ?? null,
        metrics: JSON.stringify(metricsOf(events, outcome, startedAt)),
        finished: TERMINAL.has(outcome.status),
      });
      if (ended && TERMINAL.has(outcome.status)) {
        await nodeResults.deleteRun(runId);
        this.#deps.onEnded(runId);
      }
    } catch (error) {
      // A workflow that no longer validates, or a lost lease inside the checkpointer.
      logger.warn({ err: error, runId }, "run stopped");
      const reported = toEventError(error);
      if (reported.code !== "LEASE_LOST") {
        const ended = await runs.end(runId, run.lease_gen, {
          status: "error",
          state: null,
          output: null,
          error: JSON.stringify(reported),
          waiting: null,
          expiresAt: null,
          metrics: null,
          finished: true,
        });
        if (ended) this.#deps.onEnded(runId);
      }
    } finally {
      this.#running.delete(runId);
    }
  }

  /** What to hand the engine: a Human answer or a continue, or (after a crash) a continue. */
  async #resumeOf(run: RunRow, checkpointer: DatabaseCheckpointSaver): Promise<RunOptions["resume"]> {
    if (run.pending_resume) return JSON.parse(run.pending_resume) as RunOptions["resume"];
    const started = await checkpointer.getTuple({ configurable: { thread_id: run.id, checkpoint_ns: "" } });
    return started ? { kind: "continue" } : undefined;
  }
}
