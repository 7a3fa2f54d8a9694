// Schedules on Redis (REDIS_URL): each enabled schedule is a BullMQ job scheduler (its id is the
// schedule's id, its cron and time zone the schedule's), so each fire is one job in Redis whatever
// the number of API and worker processes, and whichever process takes it fires the schedule. The
// job only says "this schedule, this fire": the database claim (next_fire_at moved on only if it
// still holds the fire) decides, so a job delivered twice, or a scheduler left behind by a changed
// or deleted schedule, starts no second run.
//
// The schedulers follow the database: a schedule saved or deleted upserts or removes its
// scheduler at once, and every process reconciles all of them with the database when it starts
// and every RECONCILE_MS after (idempotent, any number of processes), which also brings back a
// Redis restarted empty or a change made while Redis was away.
import type { Job, JobsOptions, Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { ScheduleRow } from "../models/database.model.js";
import { redisReady } from "./runs/redis-ready.js";
import type { ScheduleTimer, ScheduleTimerHandlers } from "./schedule-timer.js";

export const SCHEDULE_QUEUE_NAME = "superstep-schedules";
const RECONCILE_MS = 60_000;
// Fires handled at once by one process (each is a few queries: the claim and the run's admission).
const FIRE_CONCURRENCY = 4;
const CLOSE_WAIT_MS = 2000;
// A fire that failed (the database did not answer) is tried again a few times; one that was
// refused (the owner's limits) completes, as in the embedded mode. Ended jobs are removed at once.
const FIRE_JOB: JobsOptions = {
  attempts: 3,
  backoff: { type: "exponential", delay: 1000 },
  removeOnComplete: true,
  removeOnFail: { count: 1000 },
};

interface FireJobData {
  scheduleId: string;
}

type BullMQ = typeof import("bullmq");

export class RedisScheduleTimer implements ScheduleTimer {
  readonly kind = "redis";
  readonly #bullmq: BullMQ;
  readonly #url: string;
  /** Schedulers are written on this connection, without an offline queue: refused at once while Redis is away. */
  readonly #connection: Redis;
  readonly #onError: (message: string, error: unknown) => void;
  #queue: Queue<FireJobData> | null = null;
  #worker: Worker<FireJobData> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #handlers: ScheduleTimerHandlers | null = null;
  #closed = false;

  constructor(
    bullmq: BullMQ,
    options: { url: string; connection: Redis; onError: (message: string, error: unknown) => void },
  ) {
    this.#bullmq = bullmq;
    this.#url = options.url;
    this.#connection = options.connection;
    this.#onError = options.onError;
  }

  start(handlers: ScheduleTimerHandlers): void {
    if (this.#handlers || this.#closed) return;
    this.#handlers = handlers;
    const worker = new this.#bullmq.Worker<FireJobData>(
      SCHEDULE_QUEUE_NAME,
      (job) => handlers.fire(job.data.scheduleId, new Date(fireTime(job))),
      { connection: { url: this.#url, maxRetriesPerRequest: null }, concurrency: FIRE_CONCURRENCY },
    );
    worker.on("error", (error: Error) => this.#onError("schedule worker: Redis connection trouble", error));
    worker.on("failed", (job, error) => {
      if (job) this.#onError(`scheduled fire failed (schedule ${job.data.scheduleId})`, error);
    });
    this.#worker = worker;
    const reconcile = () =>
      void this.reconcile().catch((error: unknown) =>
        this.#onError("schedules: the job schedulers could not be matched with the database", error),
      );
    reconcile();
    this.#timer = setInterval(reconcile, RECONCILE_MS);
    this.#timer.unref();
  }

  /**
   * Makes the job schedulers in Redis match the enabled schedules in the database: missing or
   * changed ones upserted, others removed. Any number of processes may do it at once.
   */
  async reconcile(): Promise<void> {
    if (!this.#handlers) return;
    const queue = await this.#connected();
    const wanted = new Map((await this.#handlers.enabled()).map((row) => [row.id, row]));
    for (const scheduler of await queue.getJobSchedulers(0, -1)) {
      const row = wanted.get(scheduler.key);
      if (!row) await queue.removeJobScheduler(scheduler.key);
      else if (scheduler.pattern === row.cron && (scheduler.tz ?? "UTC") === row.timezone) wanted.delete(row.id);
    }
    for (const row of wanted.values()) await this.#upsert(queue, row);
  }

  async saved(schedule: ScheduleRow): Promise<void> {
    const queue = await this.#connected();
    if (schedule.enabled === 1) await this.#upsert(queue, schedule);
    else await queue.removeJobScheduler(schedule.id);
  }

  async removed(scheduleId: string): Promise<void> {
    await (await this.#connected()).removeJobScheduler(scheduleId);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    if (this.#worker) await withinCloseWait(this.#worker.close(true));
    if (this.#queue) await withinCloseWait(this.#queue.close());
    this.#connection.disconnect();
  }

  async #upsert(queue: Queue<FireJobData>, row: ScheduleRow): Promise<void> {
    await queue.upsertJobScheduler(
      row.id,
      { pattern: row.cron, tz: row.timezone },
      { name: "fire", data: { scheduleId: row.id }, opts: FIRE_JOB },
    );
  }

  async #connected(): Promise<Queue<FireJobData>> {
    if (this.#closed) throw new Error("the schedule timer is closed");
    const client = this.#connection;
    if (client.status !== "ready") {
      if (this.#queue) throw new Error("Redis does not answer (the connection is being re-established)");
      await redisReady(client);
    }
    if (!this.#queue) {
      this.#queue = new this.#bullmq.Queue<FireJobData>(SCHEDULE_QUEUE_NAME, { connection: client });
      this.#queue.on("error", (error: Error) => this.#onError("schedule queue: Redis connection trouble", error));
    }
    return this.#queue;
  }
}

/** The fire a scheduler's job stands for: its ids are `repeat:<scheduler id>:<fire millis>`. */
function fireTime(job: Job<FireJobData>): number {
  if (typeof job.opts.prevMillis === "number") return job.opts.prevMillis;
  const fromId = Number(job.id?.split(":").pop());
  return Number.isFinite(fromId) ? fromId : job.timestamp;
}

async function withinCloseWait(closing: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    closing.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_WAIT_MS);
    }),
  ]);
  clearTimeout(timer);
}
