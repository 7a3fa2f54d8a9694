// The run queue on BullMQ (Redis), for any number of API and worker processes. A job is one turn of
// a run: its id is `<run id>_<lease_gen when queued>`, so the same turn queued twice (the sweeper,
// a restart) stays one job, while a run queued again after a turn gets a new one. The job only says
// "try this run": the processor takes the run's lease in the database and runs it, or finds it
// ended or leased by a live worker and completes the job without running it. A job delivered twice
// (a stalled worker's job handed to another) therefore runs the run once.
//
// Per-user share: a worker process executes at most `perUser` runs of one user at once; a job of a
// user already at that share goes back to the queue, delayed by SHARE_RETRY_MS, so other users'
// jobs behind it go first (BullMQ's groups, which would do this inside Redis, are a paid feature).
// How many runs a user may have queued at all is decided at admission, from the database.
import type { Job, Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { redisReady } from "./redis-ready.js";
import type { JobFailureHandler, JobHandler, RunQueue } from "./run-queue.js";

export const RUN_QUEUE_NAME = "superstep-runs";
// How long a job over its user's share waits before it is tried again.
const SHARE_RETRY_MS = 1000;
// How long closing waits for BullMQ to close its connections; past it the process goes on
// closing the rest (BullMQ may wait for a Redis that is away).
const CLOSE_WAIT_MS = 2000;
// Ended jobs are removed at once (the run's row is the record); failed ones (a bug) are kept a while.
const KEEP_FAILED = { count: 1000 };
// BullMQ's errors about a job's lock (its hold on the job, or the job gone meanwhile) name the
// job: `could not renew lock for job <id>`, `Missing lock for job <id>. …`, `Missing key for job <id>. …`.
const LOCK_ERROR = /(?:lock|key) for job ([^\s.]+)/i;

interface RunJobData {
  runId: string;
  ownerId: string;
}

export interface RedisQueueSettings {
  url: string;
  /**
   * The connection jobs are added on, this process's own (closed by close()). Without an offline
   * queue: an add while Redis is away fails instead of piling up in memory.
   */
  connection: Redis;
  /** Runs this process executes at once (STUDIO_WORKER_CONCURRENCY). */
  concurrency: number;
  /** Runs of one user this process executes at once (STUDIO_USER_MAX_RUNS). */
  perUser: number;
  /** How long a worker's hold on a job lasts without renewal before another may take it (BullMQ's lockDuration). */
  lockMs: number;
  onFailure: JobFailureHandler;
  /** Connection and worker trouble (logged by the caller). */
  onError(message: string, error: unknown): void;
  /**
   * This process lost its hold on a job it was executing (it stopped answering past the lock: a
   * pause, a stalled event loop): another worker may have the run now; its lease decides.
   */
  onLockLost(runId: string | null, error: unknown): void;
  /** A job whose worker stopped answering was found by this process and handed out again. */
  onStalled(runId: string): void;
}

type BullMQ = typeof import("bullmq");

export class RedisRunQueue implements RunQueue {
  readonly kind = "redis";
  readonly #bullmq: BullMQ;
  /** Made once the connection first answers: BullMQ reads the server's version as it starts. */
  #queue: Queue<RunJobData> | null = null;
  readonly #settings: RedisQueueSettings;
  #worker: Worker<RunJobData> | null = null;
  #workerClosed: Promise<void> | null = null;
  /** Jobs being added from this process (not stored in Redis yet). */
  #adding = 0;
  /** Runs executing here, by owner. */
  readonly #activeByOwner = new Map<string, number>();
  #active = 0;
  #idle: (() => void)[] = [];
  #stopped = false;

  /** Whether the connection has answered once: after that, Redis away is refused at once. */
  #connectedOnce = false;

  constructor(bullmq: BullMQ, settings: RedisQueueSettings) {
    this.#bullmq = bullmq;
    this.#settings = settings;
    if (settings.connection.status === "ready") this.#connectedOnce = true;
    else
      settings.connection.once("ready", () => {
        this.#connectedOnce = true;
      });
  }

  start(handler: JobHandler): void {
    if (this.#worker || this.#stopped) return;
    const worker = new this.#bullmq.Worker<RunJobData>(
      RUN_QUEUE_NAME,
      (job, token) => this.#process(job, token, handler),
      {
        // A worker's connection waits for Redis however long it is away, and goes on when it is back.
        connection: { url: this.#settings.url, maxRetriesPerRequest: null },
        concurrency: this.#settings.concurrency,
        // Decision 0024: the hold on a job lasts as long as the run's lease, the check for jobs
        // whose hold ran out comes as often, and a job is handed out again once (the sweeper
        // queues the run anew from the database after that, as after any lost job).
        lockDuration: this.#settings.lockMs,
        stalledInterval: this.#settings.lockMs,
        maxStalledCount: 1,
      },
    );
    worker.on("error", (error: Error) => {
      const lock = LOCK_ERROR.exec(error.message);
      if (lock) this.#settings.onLockLost(runIdOfJob(lock[1] as string), error);
      else this.#settings.onError("run worker: Redis connection trouble", error);
    });
    worker.on("stalled", (jobId: string) => this.#settings.onStalled(runIdOfJob(jobId) ?? jobId));
    this.#worker = worker;
  }

  async enqueue(runId: string, ownerId: string, turn: number): Promise<void> {
    if (this.#stopped) return;
    this.#adding++;
    try {
      const queue = await this.#connected();
      await queue.add(
        "run",
        { runId, ownerId },
        { jobId: `${runId}_${turn}`, removeOnComplete: true, removeOnFail: KEEP_FAILED },
      );
    } finally {
      this.#adding--;
      this.#settle();
    }
  }

  size(ownerId?: string): { pending: number; active: number } {
    if (ownerId !== undefined) return { pending: 0, active: this.#activeByOwner.get(ownerId) ?? 0 };
    return { pending: this.#adding, active: this.#active };
  }

  /** Jobs stored in Redis that no worker has taken yet (tests, health). */
  async waiting(): Promise<number> {
    const counts = await (await this.#connected()).getJobCounts("waiting", "delayed", "prioritized");
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  }

  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /**
   * Takes no new job. The turns executing here go on to their end (idle() resolves then); BullMQ
   * lets go of their jobs at once (a polite close would wait for ever while Redis is away), so a
   * job whose turn was cut short by the shutdown is handed out again later, and the lease decides.
   */
  stop(): void {
    this.#stopped = true;
    if (this.#worker && !this.#workerClosed) this.#workerClosed = this.#worker.close(true).catch(() => undefined);
  }

  /**
   * Closes the connections. A turn still executing is left to its lease: its job's lock expires,
   * BullMQ hands the job to another worker, which takes the run once the lease has expired too.
   */
  async close(): Promise<void> {
    this.stop();
    if (this.#workerClosed) await withinCloseWait(this.#workerClosed);
    if (this.#queue) await withinCloseWait(this.#queue.close());
    this.#settings.connection.disconnect();
  }

  async #process(job: Job<RunJobData>, token: string | undefined, handler: JobHandler): Promise<void> {
    const { runId, ownerId } = job.data;
    const active = this.#activeByOwner.get(ownerId) ?? 0;
    if (active >= this.#settings.perUser) {
      // Over this user's share here: back to the queue for a moment, other users' jobs first.
      await job.moveToDelayed(Date.now() + SHARE_RETRY_MS, token);
      throw new this.#bullmq.DelayedError();
    }
    this.#activeByOwner.set(ownerId, active + 1);
    this.#active++;
    try {
      await handler(runId);
    } catch (error) {
      // Reported here; the job completes. The run's row says what became of it, and a run left
      // queued or with an expired lease is queued again by the sweeper.
      this.#settings.onFailure(runId, error);
    } finally {
      const left = (this.#activeByOwner.get(ownerId) ?? 1) - 1;
      if (left === 0) this.#activeByOwner.delete(ownerId);
      else this.#activeByOwner.set(ownerId, left);
      this.#active--;
      this.#settle();
    }
  }

  /**
   * The queue, once its connection is up, waiting REDIS_CONNECT_WAIT_MS at most (then the run stays
   * queued in the database); once connected, a lost connection is refused at once.
   * Adding a job fails at once while Redis is away (no offline queue): the run then waits, queued
   * in the database, for the sweeper to queue it again.
   */
  async #connected(): Promise<Queue<RunJobData>> {
    const client = this.#settings.connection;
    if (client.status !== "ready") {
      // Lost after it answered: refused at once, so that triggers do not each wait for it.
      if (this.#connectedOnce) throw new Error("Redis does not answer (the connection is being re-established)");
      await redisReady(client);
    }
    if (!this.#queue) {
      this.#queue = new this.#bullmq.Queue<RunJobData>(RUN_QUEUE_NAME, { connection: client });
      this.#queue.on("error", (error: Error) => this.#settings.onError("run queue: Redis connection trouble", error));
    }
    return this.#queue;
  }

  #isIdle(): boolean {
    return this.#adding === 0 && this.#active === 0;
  }

  #settle(): void {
    if (this.#isIdle()) for (const resolve of this.#idle.splice(0)) resolve();
  }
}

/** The run a job id names (`<run id>_<lease_gen>`), or null for an id of another shape. */
function runIdOfJob(jobId: string): string | null {
  const cut = jobId.lastIndexOf("_");
  return cut > 0 ? jobId.slice(0, cut) : null;
}

/** True when `closing` settled within CLOSE_WAIT_MS (a failure to close counts as settled). */
async function withinCloseWait(closing: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = closing.then(
    () => true,
    () => true,
  );
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), CLOSE_WAIT_MS);
  });
  try {
    return await Promise.race([settled, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
