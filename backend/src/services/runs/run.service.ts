// The run lifecycle: trigger, read, resume, continue, cancel. Every run started here (hooks,
// schedules, the editor's socket) is admitted against its owner's limits and goes through the
// queue to the executor; only the CLI executes its own run in its own process (executeNow).
import type { Actor } from "../../core/authz.js";
import { contentHash } from "../../core/canonical-json.js";
import type { EngineConfig } from "../../core/config.js";
import type { EgressClient } from "../../core/egress/egress-client.js";
import { AppError } from "../../core/errors.js";
import { checkHumanInput, type HumanRequest } from "../../engine/nodes/human-form.js";
import type { StudioEvent } from "../../engine/runtime/events.js";
import { checkPins, type PinSet } from "../../engine/runtime/pins.js";
import { prepareWorkflow } from "../../engine/runtime/prepare-workflow.js";
import { checkRunInput } from "../../engine/runtime/run-input.js";
import { StoredDocument } from "../../engine/runtime/stored-document.js";
import type { RunRow } from "../../models/database.model.js";
import type { NewRun, RunFilter, RunRepository, ServiceEvent } from "../../repositories/run.repository.js";
import type { WorkflowRepository } from "../../repositories/workflow.repository.js";
import type { PaginationQuery } from "../../schemas/common.schema.js";
import type { BackgroundMonitor } from "../background-monitor.js";
import { type Page, toPage } from "../page.js";
import type { WorkflowService } from "../workflow.service.js";
import type { CallbackDeliverer } from "./callback-deliverer.js";
import { checkCallbackUrl } from "./callback-target.js";
import type { RunAdmission } from "./run-admission.js";
import type { RunBus } from "./run-bus.js";
import type { RunQueue } from "./run-queue.js";
import type { RunWorker } from "./run-worker.js";
import {
  endsTurn,
  endWithin,
  isActive,
  type TurnEnd,
  type TurnEndWatch,
  turnEndOfView,
  watchTurnEnd,
} from "./turn-end-watch.js";

export type StudioEventView = StudioEvent;
/** Who executes a run that can go on: the worker queue, or the caller (executeNow). */
type Dispatch = "queue" | "caller";

// A live worker ends its own turn at STUDIO_RUN_TIMEOUT; the sweeper only steps in after this much more.
const SWEEP_GRACE_MS = 60_000;
// The sweeper looks at the runs this often, or twice per lease TTL when that is shorter, so a run
// whose worker died is taken over soon after its lease expires.
const SWEEP_EVERY_MS = 30_000;
// At most this many runs queued again by one sweep (the next sweep takes the rest).
const SWEEP_REQUEUE_LIMIT = 500;

export interface TriggerRequest {
  input?: Record<string, unknown>;
  context?: Record<string, unknown>;
  version?: number;
  mode?: "full" | "step";
  callback_url?: string;
}

function parse(text: string | null): unknown {
  return text === null ? null : JSON.parse(text);
}

export function toRunView(row: RunRow) {
  return {
    id: row.id,
    workflow_id: row.workflow_id,
    workflow_version: row.workflow_version,
    content_hash: row.content_hash,
    trigger: row.trigger,
    mode: row.mode,
    status: row.status,
    input: parse(row.input),
    state: parse(row.state),
    output: parse(row.output),
    error: parse(row.error),
    waiting: parse(row.waiting),
    metrics: parse(row.metrics),
    attempt: row.attempt,
    parent_run_id: row.parent_run_id,
    parent_checkpoint_id: row.parent_checkpoint_id,
    /** The nodes an editor run did not execute: their pinned output was used instead. */
    pinned_nodes: pinnedNodes(row.pins),
    schedule_id: row.schedule_id,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}
export type RunView = ReturnType<typeof toRunView>;

export class RunService {
  readonly #runs: RunRepository;
  readonly #workflows: WorkflowRepository;
  readonly #workflowService: WorkflowService;
  readonly #queue: RunQueue;
  readonly #executesRuns: boolean;
  readonly #admission: RunAdmission;
  readonly #executor: RunWorker;
  readonly #engine: EngineConfig;
  readonly #bus: RunBus;
  readonly #egress: EgressClient;
  readonly #callbacks: CallbackDeliverer;
  readonly #monitor: BackgroundMonitor;
  readonly #leaseTtlMs: number;
  #sweeper: NodeJS.Timeout | null = null;
  /** Resumed or continued runs about to be queued (see #enqueueAfterAnswer). */
  readonly #enqueueing = new Set<Promise<void>>();

  constructor(deps: {
    runs: RunRepository;
    workflows: WorkflowRepository;
    workflowService: WorkflowService;
    queue: RunQueue;
    /** Whether this process executes queued runs (false: an API process of the Redis mode that only queues). */
    executesRuns?: boolean;
    admission: RunAdmission;
    executor: RunWorker;
    engine: EngineConfig;
    bus: RunBus;
    egress: EgressClient;
    /** Delivers the callbacks of ended runs (from the outbox their ending wrote). */
    callbacks: CallbackDeliverer;
    monitor: BackgroundMonitor;
    leaseTtlMs: number;
  }) {
    this.#bus = deps.bus;
    this.#egress = deps.egress;
    this.#callbacks = deps.callbacks;
    this.#monitor = deps.monitor;
    this.#leaseTtlMs = deps.leaseTtlMs;
    this.#runs = deps.runs;
    this.#workflows = deps.workflows;
    this.#workflowService = deps.workflowService;
    this.#queue = deps.queue;
    this.#executesRuns = deps.executesRuns ?? true;
    this.#admission = deps.admission;
    this.#executor = deps.executor;
    this.#engine = deps.engine;
  }

  /**
   * Starts the worker loop, the sweeper and the callback deliveries, and queues the runs a crash
   * left queued, or running with an expired lease: they continue from their last checkpoint. A run
   * whose lease is live belongs to the process holding it (another server on the same database);
   * the sweeper takes it over if that lease ever expires.
   */
  async start(sweepEveryMs = Math.min(SWEEP_EVERY_MS, Math.max(100, this.#leaseTtlMs / 2))): Promise<number> {
    if (this.#executesRuns) this.#queue.start((runId) => this.#executor.execute(runId));
    this.#sweeper = setInterval(
      () =>
        void this.sweep().catch((error: unknown) =>
          this.#monitor.failed("sweeper", "sweep failed: the database did not answer", error),
        ),
      sweepEveryMs,
    );
    this.#sweeper.unref();
    this.#callbacks.start();
    const takeable = await this.#runs.findTakeable(new Date().toISOString());
    // A queue that refuses one (Redis away) would refuse the rest: the sweeper tries again.
    for (const run of takeable) if (!(await this.queueTurn(run))) break;
    return takeable.length;
  }

  /**
   * A run of a saved workflow (its current version, or a pinned one), queued for the worker. A
   * retried trigger with the same idempotency key returns the first run, limits or not.
   *
   * `caller` may still be being authenticated (a hook's API key): the workflow is read meanwhile,
   * one round trip fewer before the 202 on PostgreSQL, and a refused caller hears only that.
   */
  async trigger(
    caller: Actor | Promise<Actor>,
    workflowId: string,
    request: TriggerRequest,
    meta: {
      trigger: string;
      idempotencyKey?: string;
      /** The run keeps the caller's API key: its callback is signed with that key's secret. */
      keepApiKey?: boolean;
      /** Pinned outputs by node id: editor runs only (startEditorRun), never hooks or schedules. */
      pins?: Record<string, unknown>;
      scheduleId?: string;
      /** Called with a created run once it is on disk, before it is queued (it cannot have started). */
      beforeQueued?: (run: RunRow) => Promise<void>;
    },
  ): Promise<{ run: RunView; created: boolean }> {
    const reading = this.#workflows.findById(workflowId);
    // Awaited below, after the caller: this keeps a failed read from going unhandled meanwhile.
    reading.catch(() => {});
    const actor = await caller;
    const workflow = await reading;
    if (!workflow || workflow.owner_id !== actor.userId) throw new AppError("WORKFLOW_NOT_FOUND");
    const version = request.version ?? workflow.version;
    // The workflow row mirrors its newest version (document and hash): no second read for it.
    const saved = version === workflow.version ? workflow : await this.#workflows.findVersion(workflowId, version);
    if (!saved) throw new AppError("VERSION_NOT_FOUND");
    const validated = await prepareWorkflow(new StoredDocument(saved.document), {
      engine: this.#engine,
      resolveWorkflow: this.#workflowService.resolverFor(actor),
      credentialType: this.#workflowService.credentialTypesFor(actor),
      workflowId,
    });
    const input = checkRunInput(validated, request.input ?? {});
    const pins = pinsText(validated, meta.pins);
    if (request.callback_url) await checkCallbackUrl(request.callback_url, this.#egress);
    if (meta.idempotencyKey) {
      const earlier = await this.#runs.findByIdempotencyKey(actor.userId, workflowId, meta.idempotencyKey);
      // The earlier call may still be waiting for its run to reach the disk: answer once it has.
      if (earlier) return this.#once({ run: toRunView(earlier), created: false });
    }
    const newRun = {
      ownerId: actor.userId,
      workflowId,
      workflowVersion: version,
      contentHash: saved.content_hash,
      document: saved.document,
      trigger: meta.trigger,
      mode: request.mode ?? "full",
      input: JSON.stringify(input),
      context: JSON.stringify(request.context ?? {}),
      idempotencyKey: meta.idempotencyKey ?? null,
      callbackUrl: request.callback_url ?? null,
      apiKeyId: meta.keepApiKey ? (actor.apiKeyId ?? null) : null,
      pins,
      scheduleId: meta.scheduleId ?? null,
    };
    const { run, created } = await this.#admission.admit(actor.userId, meta.trigger, (visible) =>
      this.#createQueued(newRun, visible, meta.beforeQueued),
    );
    // A created run is on disk once create returns; an earlier one found by its key, once settled.
    return created ? { run: toRunView(run), created } : this.#once({ run: toRunView(run), created });
  }

  /**
   * A hook that waits (`?wait=`): triggers as `trigger` does, then waits up to `wait.ms` for the
   * end of the run's turn (finished, waiting or paused), from the run bus: it reads nothing from the
   * database while it waits. `ended` is null when the wait ran out, the caller went away (`signal`)
   * or the bus could not be listened to; the run then goes on, and the caller answers as a hook that
   * does not wait, with `running` once the run has started.
   */
  async triggerAndWait(
    caller: Actor | Promise<Actor>,
    workflowId: string,
    request: TriggerRequest,
    meta: Omit<Parameters<RunService["trigger"]>[3], "beforeQueued">,
    wait: {
      ms: number;
      signal: AbortSignal;
      /** Called once the run is accepted (created, or found by its key), before the wait. */
      accepted?: () => void;
    },
  ): Promise<{ run: RunView; created: boolean; ended: TurnEnd | null }> {
    // Listening starts before a created run is queued, so its end cannot be missed.
    const listening: { watch?: TurnEndWatch | null } = {};
    const result = await this.trigger(caller, workflowId, request, {
      ...meta,
      beforeQueued: async (run) => {
        listening.watch = await this.#watchQuietly(run.id);
      },
    });
    wait.accepted?.();
    let { run } = result;
    if (!result.created && isActive(run.status)) {
      // An earlier call's run, still going: its end may come before this listens, so its row is
      // read again once listening.
      listening.watch = await this.#watchQuietly(run.id);
      const row = listening.watch ? await this.#runs.findById(run.id) : undefined;
      if (row) run = toRunView(row);
    }
    const watch = listening.watch;
    if (!isActive(run.status)) {
      watch?.stop();
      return { ...result, run, ended: turnEndOfView(run) };
    }
    if (!watch) return { ...result, run, ended: null };
    try {
      const ended = await endWithin(watch, wait.ms, wait.signal);
      return { ...result, run: ended || !watch.started() ? run : { ...run, status: "running" }, ended };
    } finally {
      watch.stop();
    }
  }

  /** Listens for a run's turn to end; null (logged) when the run bus cannot be listened to. */
  async #watchQuietly(runId: string): Promise<TurnEndWatch | null> {
    try {
      return await watchTurnEnd(this.#bus, runId);
    } catch (error) {
      this.#monitor.failed("bus", "a hook could not wait for its run: the run bus did not answer", error, { runId });
      return null;
    }
  }

  /** `value` once everything read so far is on disk. */
  async #once<T>(value: T): Promise<T> {
    await this.#runs.settled();
    return value;
  }

  /**
   * An editor run of a saved workflow or of an unsaved document: admitted and queued like any
   * other run (the editor follows its events on the run bus). Only editor runs take `pins`: each
   * pinned node's output is used instead of executing it; a bad pin refuses the run before it is
   * created (PIN_NODE_NOT_FOUND, PIN_NODE_NOT_PINNABLE, PIN_OUTPUT_INVALID).
   */
  async startEditorRun(
    actor: Actor,
    source: { workflowId: string; version?: number } | { document: unknown },
    request: TriggerRequest,
    pins?: Record<string, unknown>,
  ): Promise<RunView> {
    if ("workflowId" in source) {
      const { run } = await this.trigger(
        actor,
        source.workflowId,
        { ...request, version: source.version },
        { trigger: "editor", pins },
      );
      return run;
    }
    return this.createForDocument(actor, source.document, request, "editor", "queue", pins);
  }

  /**
   * Records a queued run of a document (unsaved, or a file), for the worker queue or for the
   * caller to execute; admitted against the owner's limits unless the CLI runs it itself.
   */
  async createForDocument(
    actor: Actor,
    document: unknown,
    request: TriggerRequest,
    trigger: string,
    dispatch: Dispatch = "caller",
    pins?: Record<string, unknown>,
  ): Promise<RunView> {
    const validated = await prepareWorkflow(document, {
      engine: this.#engine,
      resolveWorkflow: this.#workflowService.resolverFor(actor),
      credentialType: this.#workflowService.credentialTypesFor(actor),
    });
    const input = checkRunInput(validated, request.input ?? {});
    const pinned = pinsText(validated, pins);
    const newRun = {
      ownerId: actor.userId,
      workflowId: null,
      workflowVersion: null,
      contentHash: contentHash(validated.document),
      document: JSON.stringify(validated.document),
      trigger,
      mode: request.mode ?? "full",
      input: JSON.stringify(input),
      context: JSON.stringify(request.context ?? {}),
      idempotencyKey: null,
      callbackUrl: null,
      apiKeyId: null,
      pins: pinned,
    };
    const { run } = await this.#admission.admit(actor.userId, trigger, (visible) =>
      dispatch === "queue" ? this.#createQueued(newRun, visible) : this.#runs.create(newRun, { visible }),
    );
    return toRunView(run);
  }

  /**
   * Creates the run and queues it once on disk, inside its admission (the server-wide count sees
   * it); `visible` is told at its commit.
   */
  async #createQueued(
    newRun: NewRun,
    visible: () => void,
    beforeQueued?: (run: RunRow) => Promise<void>,
  ): Promise<{ run: RunRow; created: boolean }> {
    const result = await this.#runs.create(newRun, { visible });
    if (result.created) {
      await beforeQueued?.(result.run);
      await this.queueTurn(result.run);
    }
    return result;
  }

  async get(actor: Actor, id: string): Promise<RunView> {
    return toRunView(await this.#owned(actor, id));
  }

  /** The runs page: the owner's runs, newest first; `from` and `to` are ISO times (any offset). */
  async list(actor: Actor, filter: RunFilter, page: PaginationQuery): Promise<Page<ReturnType<typeof summary>>> {
    const from = filter.from === undefined ? undefined : new Date(filter.from);
    const to = filter.to === undefined ? undefined : new Date(filter.to);
    if (from && to && from.getTime() > to.getTime()) {
      throw new AppError("RUN_FILTER_RANGE_INVALID", { from: filter.from, to: filter.to });
    }
    // Stored times are UTC toISOString() text: the bounds in the same form compare as text.
    filter = {
      ...filter,
      from: from?.toISOString(),
      to: to?.toISOString(),
      idPart: filter.idPart?.toLowerCase(),
    };
    const rows = await this.#runs.list(actor.userId, filter, page.limit + 1, page.offset);
    return toPage(rows.map(summary), page);
  }

  async events(actor: Actor, id: string, afterSeq: number, limit: number): Promise<StudioEventView[]> {
    await this.#owned(actor, id);
    const rows = await this.#runs.listEvents(id, afterSeq, limit);
    return rows.map((row) => ({
      run_id: row.run_id,
      seq: row.seq,
      ts: row.ts,
      type: row.type as StudioEvent["type"],
      ...(row.node_id !== null ? { node_id: row.node_id } : {}),
      ...(row.superstep !== null ? { superstep: row.superstep } : {}),
      data: JSON.parse(row.data) as Record<string, unknown>,
    }));
  }

  /**
   * Events after `afterSeq`, then live ones, in seq order without gaps or repeats: the live
   * subscription is in place (`ready`) before the catch-up read from the database, and anything
   * delivered twice is dropped by seq. A live event that skips ahead (the Redis bus lost messages
   * while it reconnected) has the missing ones read from the database first: every published event
   * is on disk already.
   */
  async follow(
    actor: Actor,
    id: string,
    afterSeq: number,
    onEvent: (event: StudioEventView) => void,
  ): Promise<() => void> {
    return (await this.#follow(actor, id, afterSeq, onEvent)).stop;
  }

  /**
   * `follow` until the run's turn ends (the SSE stream): `ended` resolves once the event that ends
   * it has been handed on, and nothing after it is; or, for a run already past its turn whose
   * ending is not after `afterSeq`, once every event on disk has been. The row is read after the
   * catch-up, and what it says ended may not have reached the bus yet, so the disk is read once
   * more before `ended`: the ending event is committed with the row (RunRepository.end).
   */
  async followTurn(
    actor: Actor,
    id: string,
    afterSeq: number,
    onEvent: (event: StudioEventView) => void,
  ): Promise<{ stop: () => void; ended: Promise<void> }> {
    // Nothing is handed on after the turn's end, though the next turn's events may follow at once.
    let over = false;
    let resolveEnded = () => {};
    const ended = new Promise<void>((resolve) => {
      resolveEnded = resolve;
    });
    const endTurn = () => {
      over = true;
      resolveEnded();
    };
    const following = await this.#follow(actor, id, afterSeq, (event) => {
      if (over) return;
      onEvent(event);
      if (endsTurn(event.type)) endTurn();
    });
    try {
      if (!over && !isActive((await this.#owned(actor, id)).status)) {
        await following.catchUp();
        endTurn();
      }
    } catch (error) {
      following.stop();
      throw error;
    }
    return { stop: following.stop, ended };
  }

  async #follow(
    actor: Actor,
    id: string,
    afterSeq: number,
    onEvent: (event: StudioEventView) => void,
  ): Promise<{ stop: () => void; catchUp: () => Promise<void> }> {
    await this.#owned(actor, id);
    let last = afterSeq;
    let closed = false;
    /** Live events not handed on yet (during a read from the database), in any order. */
    const waiting: StudioEventView[] = [];
    let reading = true;
    const deliver = (event: StudioEventView) => {
      if (event.seq <= last || closed) return;
      last = event.seq;
      onEvent(event);
    };
    const readMissing = async () => {
      for (;;) {
        const page = await this.events(actor, id, last, 500);
        // Events read back are sent only once they are on disk (published ones already are).
        await this.#runs.settled();
        for (const event of page) deliver(event);
        if (page.length < 500) break;
      }
    };
    // Hands on the waiting events in order; at a gap, reads the database once, then goes on (a
    // gap still there after the read is one the database has too: nothing more to find).
    const drain = (afterRead: boolean) => {
      waiting.sort((a, b) => a.seq - b.seq);
      while (waiting.length > 0) {
        const event = waiting[0] as StudioEventView;
        if (event.seq > last + 1 && !afterRead) {
          reading = true;
          readMissing().then(
            () => drain(true),
            (error: unknown) => {
              // Tried again at the next live event.
              reading = false;
              this.#monitor.failed("bus", "missing run events not read from the database", error, { runId: id });
            },
          );
          return;
        }
        waiting.shift();
        deliver(event);
      }
      reading = false;
    };
    const unsubscribeBus = this.#bus.subscribe(id, (event) => {
      waiting.push(event);
      if (!reading) drain(false);
    });
    const unsubscribe = () => {
      closed = true;
      unsubscribeBus();
    };
    try {
      await this.#bus.ready(id);
      await readMissing();
    } catch (error) {
      unsubscribe();
      throw error;
    }
    drain(true);
    // Live events wait while the disk is read again, then follow in order (after a failed read the
    // caller stops following: nothing is handed on past a gap).
    const catchUp = async () => {
      reading = true;
      await readMissing();
      drain(true);
    };
    return { stop: unsubscribe, catchUp };
  }

  /** Executes a queued run in the caller's process and returns when this turn ends (the CLI). */
  async executeNow(id: string): Promise<void> {
    await this.#executor.execute(id);
  }

  /** A person's answer to a waiting run: checked against the form, applied once. */
  async resume(actor: Actor, id: string, input: unknown, dispatch: Dispatch = "queue"): Promise<RunView> {
    const run = await this.#owned(actor, id);
    if (run.status !== "waiting") throw new AppError("RUN_NOT_WAITING", { status: run.status });
    const request = parse(run.waiting) as (HumanRequest & { expires_at: string | null }) | null;
    if (request?.expires_at && Date.parse(request.expires_at) <= Date.now()) {
      await this.expire(run.id);
      throw new AppError("HUMAN_WAIT_EXPIRED", { expires_at: request.expires_at });
    }
    const problems = checkHumanInput(request?.fields ?? [], input);
    if (problems.length > 0) throw new AppError("HUMAN_INPUT_INVALID", problems);
    const moved = await this.#runs.transition(id, ["waiting"], "queued", {
      pendingResume: JSON.stringify({ kind: "human", input }),
    });
    // A second resume finds the run no longer waiting: it applies once.
    if (!moved) throw new AppError("RUN_NOT_WAITING", { status: (await this.#owned(actor, id)).status });
    if (dispatch === "queue") this.#enqueueAfterAnswer(moved);
    return toRunView(moved);
  }

  async continue(actor: Actor, id: string, dispatch: Dispatch = "queue"): Promise<RunView> {
    const run = await this.#owned(actor, id);
    if (run.status !== "paused") throw new AppError("RUN_NOT_PAUSED", { status: run.status });
    const moved = await this.#runs.transition(id, ["paused"], "queued", {
      pendingResume: JSON.stringify({ kind: "continue" }),
    });
    if (!moved) throw new AppError("RUN_NOT_PAUSED", { status: (await this.#owned(actor, id)).status });
    if (dispatch === "queue") this.#enqueueAfterAnswer(moved);
    return toRunView(moved);
  }

  async cancel(actor: Actor, id: string): Promise<RunView> {
    const run = await this.#owned(actor, id);
    const error = JSON.stringify({ code: "RUN_CANCELLED", message: new AppError("RUN_CANCELLED").message });
    // The status and its run_finished event in one transaction: both are kept or neither.
    const moved = await this.#end(id, ["queued", "running", "waiting", "paused"], "cancelled", error, new Date());
    if (!moved) throw new AppError("RUN_NOT_ACTIVE", { status: run.status });
    this.#executor.abort(id);
    this.#callbacks.kick();
    return toRunView(moved);
  }

  /** Ends a wait that outlived its timeout (called on resume and by the sweeper). */
  async expire(id: string): Promise<boolean> {
    const error = JSON.stringify({ code: "HUMAN_WAIT_EXPIRED", message: new AppError("HUMAN_WAIT_EXPIRED").message });
    const moved = await this.#end(id, ["waiting"], "expired", error, new Date());
    if (moved) this.#callbacks.kick();
    return Boolean(moved);
  }

  /**
   * The sweeper: overdue waits become expired; runs whose current turn has been running well past
   * STUDIO_RUN_TIMEOUT (a stuck worker; a live one stops itself) become timeout, measured from the
   * turn's start so that time spent waiting or paused never counts; and runs whose worker died
   * (lease expired) or that a stopped process left queued are queued here. Returns how many runs
   * it acted on. A failure with one run is logged and the sweep goes on with the others.
   */
  async sweep(now = new Date()): Promise<number> {
    let swept = 0;
    const each = async (runId: string, what: string, action: () => Promise<boolean>) => {
      try {
        if (await action()) swept++;
      } catch (error) {
        this.#monitor.failed("sweeper", `sweep could not ${what}`, error, { runId });
      }
    };
    for (const run of await this.#runs.findOverdueWaits(now.toISOString())) {
      await each(run.id, "expire a wait", () => this.expire(run.id));
    }
    const turnStartedBefore = new Date(now.getTime() - this.#engine.runTimeoutMs - SWEEP_GRACE_MS).toISOString();
    for (const run of await this.#runs.findOverTime(turnStartedBefore)) {
      await each(run.id, "time out a run", () => this.#timeOut(run.id, now));
    }
    const takeable = await this.#runs.findTakeable(now.toISOString(), {
      queuedBefore: new Date(now.getTime() - this.#leaseTtlMs).toISOString(),
      limit: SWEEP_REQUEUE_LIMIT,
    });
    for (const run of takeable) {
      if (!(await this.queueTurn(run))) break;
      swept++;
    }
    this.#monitor.swept(now);
    return swept;
  }

  async #timeOut(id: string, now: Date): Promise<boolean> {
    const error = JSON.stringify({ code: "RUN_TIMEOUT", message: new AppError("RUN_TIMEOUT").message });
    if (!(await this.#end(id, ["running"], "timeout", error, now))) return false;
    this.#executor.abort(id);
    this.#callbacks.kick();
    return true;
  }

  /**
   * Ends a run from outside its worker (cancel, an expired wait, a timeout): the status and its
   * run_finished event in one transaction, then the event goes to live listeners, which would
   * otherwise see it only on their next read.
   */
  async #end(id: string, from: string[], to: string, error: string, at: Date): Promise<RunRow | undefined> {
    const event = finishedEvent(to, error, at);
    const moved = await this.#runs.transition(id, from, to, { error, event });
    if (moved) {
      this.#bus.publish({
        run_id: id,
        seq: moved.next_seq - 1,
        ts: event.ts,
        type: "run_finished",
        data: JSON.parse(event.data) as Record<string, unknown>,
      });
    }
    return moved;
  }

  /**
   * What this process holds for runs now: runs executing, runs queued in memory, and live event
   * listeners. A run that waits for a person or is paused is in none of them: it is only a row.
   */
  held(): { executing: number; queued: number; listeners: number } {
    const { pending, active } = this.#queue.size();
    return { executing: this.#executor.executing(), queued: pending + active, listeners: this.#bus.listeners() };
  }

  /** Resolves when the queue has nothing left to do (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all(this.#enqueueing);
    return this.#queue.idle();
  }

  /** Stops taking work; the callback deliveries in flight finish (the rest wait in the outbox). */
  async stop(): Promise<void> {
    if (this.#sweeper) clearInterval(this.#sweeper);
    this.#queue.stop();
    this.#executor.stop();
    await this.#callbacks.stop();
  }

  /**
   * Queues a resumed or continued run once the caller has its answer: a free worker would
   * otherwise start the turn (and its first database writes) before the answer is written. The
   * run is already `queued` in the database, so a stop in between loses nothing (the next start or
   * the sweeper queues it).
   */
  #enqueueAfterAnswer(run: RunRow): void {
    const queued = new Promise<void>((resolve) =>
      setImmediate(() => {
        void this.queueTurn(run).then(() => {
          this.#enqueueing.delete(queued);
          resolve();
        });
      }),
    );
    this.#enqueueing.add(queued);
  }

  /**
   * Hands a run to the queue for its next turn (named by its lease_gen now). A queue that cannot
   * take it (Redis away) is reported, not thrown: the run is queued in the database already, and
   * the sweeper or the next start queues it again. True when the queue took it.
   */
  async queueTurn(run: Pick<RunRow, "id" | "owner_id" | "lease_gen">): Promise<boolean> {
    try {
      await this.#queue.enqueue(run.id, run.owner_id, run.lease_gen);
      return true;
    } catch (error) {
      this.#monitor.failed("queue", "run not queued: the queue did not take it; the sweeper queues it again", error, {
        runId: run.id,
      });
      return false;
    }
  }

  async #owned(actor: Actor, id: string): Promise<RunRow> {
    const run = await this.#runs.findById(id);
    if (!run || run.owner_id !== actor.userId) throw new AppError("RUN_NOT_FOUND");
    return run;
  }
}

/** The nodes whose pinned output an editor run used ([] for every other run). */
function pinnedNodes(pins: string | null): string[] {
  return pins === null ? [] : Object.keys(JSON.parse(pins) as PinSet);
}

/** The checked pins as stored in the run's row; null without any. */
function pinsText(workflow: Parameters<typeof checkPins>[0], pins: Record<string, unknown> | undefined): string | null {
  if (!pins || Object.keys(pins).length === 0) return null;
  return JSON.stringify(checkPins(workflow, pins));
}

function summary(row: Awaited<ReturnType<RunRepository["list"]>>[number]) {
  const error = parse(row.error) as { code?: unknown } | null;
  const ended = row.started_at !== null && row.finished_at !== null;
  return {
    id: row.id,
    workflow_id: row.workflow_id,
    workflow_name: row.workflow_name ?? null,
    workflow_version: row.workflow_version,
    trigger: row.trigger,
    mode: row.mode,
    status: row.status,
    error_code: typeof error?.code === "string" ? error.code : null,
    error,
    metrics: parse(row.metrics),
    parent_run_id: row.parent_run_id,
    parent_checkpoint_id: row.parent_checkpoint_id,
    pinned_nodes: pinnedNodes(row.pins),
    schedule_id: row.schedule_id,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    // From the first start to the end, waits included; null until the run has ended.
    duration_ms: ended ? Date.parse(row.finished_at as string) - Date.parse(row.started_at as string) : null,
  };
}

/** The run_finished event of an ending the service records itself (cancel, expiry, timeout). */
function finishedEvent(status: string, error: string, at: Date): ServiceEvent {
  return {
    type: "run_finished",
    node_id: null,
    superstep: null,
    ts: at.toISOString(),
    data: JSON.stringify({ status, error: JSON.parse(error) }),
  };
}
