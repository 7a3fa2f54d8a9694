// The job processor: takes a run by its lease, loads it, runs the engine with the database
// checkpointer and ledger (both fenced by the lease), renews the lease while it runs, and records
// events and the ending. No failure is dropped: each is logged with the run id. A turn cut short
// by a full disk, a database locked by another connection, a failed sync of the disk or a
// PostgreSQL server that does not answer (stopped, restarting) ends nothing: the run stays
// `running` under a lease left to expire, and the sweeper queues it again (or the next start
// takes it over), to go on from its last checkpoint once the database takes writes again.
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Kysely } from "kysely";
import type { EngineConfig } from "../../core/config.js";
import { AppError, type ErrorCode } from "../../core/errors.js";
import { lazyImport } from "../../core/lazy-import.js";
import type { Logger } from "../../core/logging.js";
import type { StudioEvent } from "../../engine/runtime/events.js";
import { toEventError } from "../../engine/runtime/node-failure.js";
import type { RunOptions, RunOutcome } from "../../engine/runtime/runtime.js";
import { StoredDocument } from "../../engine/runtime/stored-document.js";
import type { Database, RunRow } from "../../models/database.model.js";
import type { DatabaseCheckpointSaver } from "../../repositories/checkpoint.saver.js";
import { isDatabaseAway, type StorageProblem, storageProblem } from "../../repositories/database-errors.js";
import type { NodeResultRepository } from "../../repositories/node-result.repository.js";
import type { RunEnding, RunEventInput, RunRepository } from "../../repositories/run.repository.js";
import type { WriteBatcher } from "../../repositories/write-batcher.js";
import type { BackgroundMonitor } from "../background-monitor.js";
import { EventRecorder } from "./event-recorder.js";
import type { RunBus } from "./run-bus.js";
import type { RunWorker } from "./run-worker.js";
import { watchStorage } from "./storage-watch.js";
import { endsTurn } from "./turn-end-watch.js";

// Writing an ending the database refused is tried again after these waits (the last one repeats).
const ENDING_RETRY_MS = [200, 500, 1000, 2000, 5000];
const TERMINAL = new Set(["ok", "error", "cancelled", "timeout", "expired"]);
// What is logged when a turn stops on a storage problem and leaves the run for later.
/**
 * Why a turn stops and leaves its run for later (no ending: it goes on from its last checkpoint
 * once its lease expires and the sweeper queues it again): a storage problem, or a database server
 * that cannot be reached (PostgreSQL stopped or restarting), which is the same for the run as a
 * crash of its worker.
 */
type PauseReason = StorageProblem | "away";

const PAUSED_BECAUSE: Record<PauseReason, string> = {
  away: "run paused: the database did not answer; it goes on from its last checkpoint once the database is back",
  full: "run paused: the database's disk is full; it goes on from its last checkpoint once there is space",
  busy: "run paused: the database stayed locked; it goes on from its last checkpoint once the lock is released",
  unsynced:
    "run paused: the disk did not confirm a database write; it goes on from its last checkpoint once the studio is restarted",
};

// LangGraph and the checkpointer (several hundred modules, tens of MB) load with the first run,
// not at start: a server that only serves the editor, or waits, never pays for them.
export const runEngine = lazyImport(async () => {
  const [{ runStream }, { DatabaseCheckpointSaver }] = await Promise.all([
    import("../../engine/runtime/runtime.js"),
    import("../../repositories/checkpoint.saver.js"),
  ]);
  return { runStream, DatabaseCheckpointSaver };
});

export interface ExecutorDeps {
  db: Kysely<Database>;
  /** Where a run's checkpoints are written (shared transactions: write-batcher.ts). */
  writes: WriteBatcher;
  runs: RunRepository;
  nodeResults: NodeResultRepository;
  engine: EngineConfig;
  /** Where events go once on disk (the run bus; from the run thread, a message to the bus). */
  bus: Pick<RunBus, "publish">;
  logger: Logger;
  monitor: BackgroundMonitor;
  /** How long a lease holds without renewal; the holder renews it every third of that. */
  leaseTtlMs: number;
  resolverFor(ownerId: string): NonNullable<RunOptions["resolveWorkflow"]>;
  /** Opens the owner's stored credentials for the run (only theirs). */
  credentialsFor(ownerId: string): NonNullable<RunOptions["credentials"]>;
  /** Called when a run with a callback URL reaches a final status. */
  onEnded(runId: string): void;
  /** What an owner's imported workflows run with (the import settings, and where that owner's job's source is). */
  importsFor?(ownerId: string): NonNullable<RunOptions["imports"]>;
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

/** How a turn ended, the event that says so, and when the turn's other events are all handed on. */
interface TurnOutcome {
  ending: RunEnding;
  event: StudioEvent | null;
  handedOn: () => Promise<void>;
}

/** What one turn learned about its lease and the database while it ran. */
interface TurnState {
  leaseLost: boolean;
  /** A write or read of this run that the database refused (it went away). */
  databaseError: unknown;
  /** A write the database refused for a while only (disk full, locked, away): the turn is tried again later. */
  storage: { problem: PauseReason; error: unknown } | null;
}

function errorText(code: ErrorCode, details?: unknown): string {
  return JSON.stringify({ code, message: new AppError(code).message, ...(details ? { details } : {}) });
}

function metricsOf(events: StudioEvent[], outcome: RunOutcome, startedAt: number) {
  const count = (type: string) => events.filter((e) => e.type === type).length;
  return {
    duration_ms: Date.now() - startedAt,
    supersteps: outcome.supersteps,
    nodes_finished: count("node_finished"),
    nodes_reused: events.filter((e) => e.type === "node_finished" && e.data.reused === true).length,
    nodes_pinned: events.filter((e) => e.type === "node_finished" && e.data.pinned === true).length,
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

export class RunExecutor implements RunWorker {
  readonly #deps: ExecutorDeps;
  readonly #workerId = `worker-${randomUUID()}`;
  readonly #running = new Map<string, AbortController>();
  /** Stops endings that wait for the database to come back (shutdown). */
  readonly #stopping = new AbortController();

  constructor(deps: ExecutorDeps) {
    this.#deps = deps;
  }

  /** How many runs this process is executing now (a waiting or paused run is not one of them). */
  executing(): number {
    return this.#running.size;
  }

  /** Stops a run this process is executing (cancel); true when it was running here. */
  abort(runId: string): boolean {
    const controller = this.#running.get(runId);
    controller?.abort();
    return controller !== undefined;
  }

  /** Shutdown: endings still waiting for the database give up (the lease expires; another start takes the run over). */
  stop(): void {
    this.#stopping.abort();
  }

  /** Stops the sandbox children kept ready for Code nodes (loaded here only to stop them). */
  async close(): Promise<void> {
    await (await import("../../engine/sandbox/sandbox-pool.js")).stopSandboxPool();
  }

  async execute(runId: string): Promise<void> {
    const { runs, monitor, leaseTtlMs } = this.#deps;
    let run: RunRow | undefined;
    try {
      // The engine is loaded before the lease is taken: a thread's first load (seconds on a busy
      // machine) holds up its timers, and would otherwise spend the lease it had just taken, so
      // that another worker took a live run over.
      await runEngine();
      run = await runs.lease(runId, this.#workerId, leaseTtlMs);
    } catch (error) {
      // Still queued in the database: the sweeper queues it again once the database answers.
      monitor.failed("run", "run not started: the database did not answer", error, { runId });
      return;
    }
    // Ended, or leased by a live worker elsewhere: not ours to run.
    if (!run) return;
    const controller = new AbortController();
    this.#running.set(runId, controller);
    const turn: TurnState = { leaseLost: false, databaseError: null, storage: null };
    const stopRenewing = this.#keepLease(run, controller, turn);
    try {
      const ending = await this.#turn(run, controller, turn);
      stopRenewing();
      if (ending && !turn.leaseLost) await this.#finish(run, ending);
    } finally {
      stopRenewing();
      this.#running.delete(runId);
    }
  }

  /**
   * Runs the engine for one turn and says how the run ended; null when the lease was lost (the
   * new holder writes the ending). The run timeout counts from the turn's start, which a worker
   * taking over a crashed turn keeps: waiting for a person or paused never counts.
   */
  async #turn(run: RunRow, controller: AbortController, turn: TurnState): Promise<TurnOutcome | null> {
    const { runs, nodeResults, db, engine, bus, logger, monitor } = this.#deps;
    const runId = run.id;
    const startedAt = Date.now();
    const turnStart = run.turn_started_at ? Date.parse(run.turn_started_at) : startedAt;
    const budgetMs = Math.min(engine.runTimeoutMs, engine.runTimeoutMs - (startedAt - turnStart));
    if (budgetMs <= 0) {
      // Taken over after a crash, with the turn's time already spent: not run again.
      const error = errorText("RUN_TIMEOUT");
      return {
        ending: { ...failedEnding(run, error), status: "timeout" },
        event: finishedEvent(run, run.next_seq, { status: "timeout", error: JSON.parse(error) }),
        handedOn: async () => {},
      };
    }
    const events: StudioEvent[] = [];
    // The event that announces the ending is recorded with the ending itself (see #finish).
    let ending: StudioEvent | null = null;
    const noteStorage = (error: unknown) => {
      const problem = storageProblem(error) ?? (isDatabaseAway(error) ? "away" : null);
      if (problem && !turn.storage) turn.storage = { problem, error };
    };
    // Events are written in order while the engine goes on, answered at commit and published once
    // on disk; a write the lease refuses or the database fails stops the run.
    const recorder = new EventRecorder({
      append: (written) => runs.appendEvents(runId, run.lease_gen, written.map(eventRow), "commit"),
      onDisk: () => runs.settled(),
      written: (written) => {
        for (const event of written) bus.publish(event);
      },
      stopped: (why) => {
        if ("error" in why) {
          turn.databaseError ??= why.error;
          noteStorage(why.error);
        } else turn.leaseLost = true;
        controller.abort();
      },
    });
    try {
      const { runStream, DatabaseCheckpointSaver } = await runEngine();
      // Checkpoints are answered once committed: what depends on them outside the server waits
      // for the disk itself (answers, published events, the ledger before every call out).
      const checkpointer = watchStorage(
        new DatabaseCheckpointSaver(db, {
          fence: { runId, leaseGen: run.lease_gen },
          writes: this.#deps.writes,
          acknowledge: "commit",
          newThread: isFirstTurn(run),
        }),
        noteStorage,
      );
      const resume = await this.#resumeOf(run, checkpointer).catch((error: unknown) => {
        turn.databaseError = error;
        throw error;
      });
      const generator = runStream(new StoredDocument(run.document), resume ? null : JSON.parse(run.input), {
        engine,
        timeoutMs: budgetMs,
        runId,
        mode: run.mode === "step" ? "step" : "full",
        resume,
        checkpointer,
        ledger: watchStorage(ledgerOf(run, nodeResults), noteStorage),
        context: JSON.parse(run.context) as Record<string, unknown>,
        signal: controller.signal,
        attempt: run.attempt,
        firstSeq: run.next_seq,
        resolveWorkflow: this.#deps.resolverFor(run.owner_id),
        credentials: this.#deps.credentialsFor(run.owner_id),
        workflowId: run.workflow_id ?? undefined,
        ...(this.#deps.importsFor ? { imports: this.#deps.importsFor(run.owner_id) } : {}),
        // An editor run's pinned outputs (checked when the run was created).
        ...(run.pins ? { pins: JSON.parse(run.pins) as Record<string, Record<string, unknown>> } : {}),
        onEvent: (event) => {
          events.push(event);
          if (turn.leaseLost) return;
          if (endsTurn(event.type)) {
            ending = event;
            return;
          }
          recorder.add(event);
        },
      });
      let next = await generator.next();
      while (!next.done) next = await generator.next();
      const outcome = next.value;
      await recorder.drain();
      if (turn.databaseError) throw turn.databaseError;
      if (turn.leaseLost) return null;
      if (outcome.status === "error" && this.#leftForLater(runId, turn)) return null;
      return {
        ending: {
          status: outcome.status,
          state: JSON.stringify(outcome.state),
          output: JSON.stringify(outcome.output),
          error: outcome.error ? JSON.stringify(outcome.error) : null,
          waiting: outcome.waiting ? JSON.stringify(outcome.waiting) : null,
          expiresAt: outcome.waiting?.expires_at ?? null,
          metrics: JSON.stringify(metricsOf(events, outcome, startedAt)),
          finished: TERMINAL.has(outcome.status),
        },
        event: ending,
        handedOn: () => recorder.handedOn(),
      };
    } catch (error) {
      // Whatever was emitted before the failure is written before the ending.
      await recorder.drain();
      const reported = toEventError(error);
      if (turn.leaseLost || reported.code === "LEASE_LOST") {
        logger.warn({ runId }, "run taken over by another worker; this one stopped");
        return null;
      }
      noteStorage(turn.databaseError);
      if (this.#leftForLater(runId, turn)) return null;
      let text: string;
      if (turn.databaseError) {
        monitor.failed("run", "run failed: the database did not answer", error, { runId });
        text = errorText("DATABASE_UNAVAILABLE", { reason: messageOf(turn.databaseError) });
      } else {
        // A workflow that no longer validates, or a credential that no longer opens.
        logger.warn({ err: error, runId }, "run stopped");
        text = JSON.stringify(reported);
      }
      const seq = (events.at(-1)?.seq ?? run.next_seq - 1) + 1;
      return {
        ending: failedEnding(run, text),
        event: finishedEvent(run, seq, { status: "error", error: JSON.parse(text) }),
        handedOn: () => recorder.handedOn(),
      };
    }
  }

  /**
   * A turn that failed because the database refused a write for a while (disk full, a lock held
   * by another connection, the server away) records no ending: the run stays `running`, its lease expires (nothing
   * renews it), and the sweeper queues it again to go on from its last checkpoint, as after a
   * crash. True when that is the case.
   */
  #leftForLater(runId: string, turn: TurnState): boolean {
    if (turn.storage === null) return false;
    this.#deps.monitor.failed("run", PAUSED_BECAUSE[turn.storage.problem], turn.storage.error, { runId });
    return true;
  }

  /**
   * Records the ending while the lease holds, trying again until the database takes it (or the
   * server stops: the lease then expires and the next start takes the run over). `event` (the
   * run_finished, run_waiting or run_paused event) is recorded in the same transaction and only
   * then published, so a client that sees it finds the run's row already saying so.
   */
  async #finish(run: RunRow, { ending, event, handedOn }: TurnOutcome): Promise<void> {
    const { runs, logger, monitor, bus } = this.#deps;
    const runId = run.id;
    for (let attempt = 0; ; attempt++) {
      try {
        const recorded = {
          ...ending,
          callback: run.callback_url !== null,
          ...(event ? { event: eventRow(event) } : {}),
        };
        if (!(await runs.end(runId, run.lease_gen, recorded))) {
          logger.info({ runId }, "run ending not recorded: the run was cancelled or taken over meanwhile");
          return;
        }
        if (attempt > 0)
          logger.info({ runId, status: ending.status }, "run ending recorded after the database came back");
        break;
      } catch (error) {
        // Nothing is written until the studio restarts; the next start takes the run over.
        if (storageProblem(error) === "unsynced") {
          monitor.failed("run", PAUSED_BECAUSE.unsynced, error, { runId, status: ending.status });
          return;
        }
        if (attempt === 0)
          monitor.failed("run", "run ending not recorded; trying again until the database answers", error, {
            runId,
            status: ending.status,
          });
        else logger.warn({ err: error, runId, attempt }, "run ending still not recorded");
        if (this.#stopping.signal.aborted) return;
        const wait = ENDING_RETRY_MS[Math.min(attempt, ENDING_RETRY_MS.length - 1)] as number;
        await sleep(wait, undefined, { signal: this.#stopping.signal }).catch(() => undefined);
        if (this.#stopping.signal.aborted) return;
      }
    }
    // Announced once on disk (the ending was answered at commit), after the turn's other events.
    if (event)
      await Promise.all([runs.settled(), handedOn()]).then(
        () => bus.publish(event),
        (error: unknown) => monitor.failed("run", "run ending not confirmed by the disk", error, { runId }),
      );
    // The ending queued the run's callback, if it has a URL.
    if (ending.finished && run.callback_url) this.#deps.onEnded(runId);
  }

  /**
   * Renews the lease every third of its TTL while the turn runs. A renewal the database refuses
   * because another worker holds the run (or it was cancelled) stops the turn here, writing
   * nothing more; one that fails (the database is away) is logged and tried again.
   */
  #keepLease(run: RunRow, controller: AbortController, turn: TurnState): () => void {
    const { runs, logger, monitor, leaseTtlMs } = this.#deps;
    let renewing = false;
    const renew = () => {
      if (renewing || turn.leaseLost) return;
      renewing = true;
      runs
        .renewLease(run.id, run.lease_gen, leaseTtlMs)
        .then(
          (kept) => {
            if (kept || turn.leaseLost) return;
            turn.leaseLost = true;
            logger.warn({ runId: run.id }, "lease lost: the run was cancelled or taken over; stopping it here");
            controller.abort();
          },
          (error: unknown) => monitor.failed("run", "lease not renewed", error, { runId: run.id }),
        )
        .finally(() => {
          renewing = false;
        });
    };
    const every = Math.max(10, Math.floor(leaseTtlMs / 3));
    const timer = setInterval(renew, every);
    timer.unref();
    // A lease answered late (its commit waited) has less left than the first renewal needs: now.
    const left = run.lease_expires_at ? Date.parse(run.lease_expires_at) - Date.now() : 0;
    if (left < leaseTtlMs - every) renew();
    return () => clearInterval(timer);
  }

  /** What to hand the engine: a Human answer or a continue, or (after a crash) a continue. */
  async #resumeOf(run: RunRow, checkpointer: DatabaseCheckpointSaver): Promise<RunOptions["resume"]> {
    if (run.pending_resume) return JSON.parse(run.pending_resume) as RunOptions["resume"];
    if (isFirstTurn(run)) return undefined;
    const started = await checkpointer.getTuple({ configurable: { thread_id: run.id, checkpoint_ns: "" } });
    return started ? { kind: "continue" } : undefined;
  }
}

/**
 * A run's first lease, unless it is a fork (created with its parent's checkpoint): no checkpoint
 * of it can exist yet, so neither its turn nor the graph reads one.
 */
function isFirstTurn(run: RunRow): boolean {
  return run.attempt === 1 && run.parent_run_id === null && run.pending_resume === null;
}

/** A run's own ledger; a fork's also reads the results its parent finished (decision 0019). */
function ledgerOf(run: RunRow, nodeResults: NodeResultRepository) {
  if (run.parent_run_id === null) return nodeResults.ledgerFor(run.id);
  const rerun = new Set(JSON.parse(run.fork_rerun ?? "[]") as string[]);
  return nodeResults.forkLedgerFor(run.id, run.parent_run_id, rerun);
}

/** A run_finished event the executor reports itself (the engine could not). */
function finishedEvent(run: RunRow, seq: number, data: Record<string, unknown>): StudioEvent {
  return { run_id: run.id, seq, ts: new Date().toISOString(), type: "run_finished", data };
}

/** A final `error` (or, with the status changed, `timeout`) ending that keeps the state the run had. */
function failedEnding(run: RunRow, error: string): RunEnding {
  return {
    status: "error",
    state: run.state,
    output: null,
    error,
    waiting: null,
    expiresAt: null,
    metrics: null,
    finished: true,
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
