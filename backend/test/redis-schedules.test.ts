// Schedules in the Redis mode on real processes: an API process and a `superstep worker` share a
// PostgreSQL database and a Redis server the test starts. Each enabled schedule is a BullMQ job
// scheduler; both processes take its fires; the database claim is the fence, so each fire starts
// one run even when it is handled twice. The schedulers follow the schedules (created, changed,
// disabled, deleted) and are reconciled with the database when a process starts. Fires are
// counted against the scheduler's own ticks in Redis and against another schedule's fires, never
// against the wall clock.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "../src/repositories/database.js";
import { SCHEDULE_QUEUE_NAME } from "../src/services/redis-schedule-timer.js";
import { edge } from "./engine-harness.js";
import { type RedisServer, startRedisServer } from "./redis-server.js";
import { call, openStudioDatabase, type StudioApi, setUp, until } from "./studio-api.js";
import {
  assertBuilt,
  reapStudioProcesses,
  type StudioProcess,
  startStudioProcess,
  startWorkerProcess,
} from "./studio-process.js";
import { testDatabaseEnv } from "./test-database.js";

const quick = { name: "scheduled", state: [{ name: "n", type: "number" }], nodes: [], edges: [edge("start", "end")] };
// The shortest interval this server allows (STUDIO_SCHEDULE_MIN_INTERVAL), and a cron firing at it.
const MIN_INTERVAL = 2;
const EVERY_TWO_SECONDS = "*/2 * * * * *";

describe("Redis mode: schedules as BullMQ job schedulers, over an API and a worker process", () => {
  let redis: RedisServer;
  let dataDir: string;
  let env: Record<string, string>;
  let dropDatabase: () => Promise<void>;
  let database: DatabaseHandle;
  let api: StudioProcess;
  let worker: StudioProcess;
  let client: StudioApi;
  let workflowId: string;
  let fires: Queue;

  beforeAll(async () => {
    assertBuilt();
    redis = await startRedisServer();
    dataDir = mkdtempSync(join(tmpdir(), "superstep-redis-schedules-"));
    const db = await testDatabaseEnv();
    dropDatabase = db.drop;
    env = {
      STUDIO_DATA_DIR: dataDir,
      STUDIO_LOG_FORMAT: "json",
      STUDIO_SCHEDULE_MIN_INTERVAL: String(MIN_INTERVAL),
      REDIS_URL: redis.url,
      JWT_SECRET: randomBytes(32).toString("hex"),
      STUDIO_ENCRYPTION_KEY: randomBytes(32).toString("hex"),
      ...db.env,
    };
    api = await startStudioProcess(env);
    worker = await startWorkerProcess(env);
    client = { base: api.url, token: "" };
    workflowId = String((await setUp(client, [quick])).workflowIds[0]);
    database = openStudioDatabase(dataDir, env);
    fires = new Queue(SCHEDULE_QUEUE_NAME, { connection: { url: redis.url } });
  });
  afterAll(async () => {
    await reapStudioProcesses();
    await fires?.close();
    await database?.close();
    await dropDatabase?.();
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const schedulesUrl = () => `/api/workflows/${workflowId}/schedules`;
  const createSchedule = async (body: object) => {
    const created = await call(client, "POST", schedulesUrl(), body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.data as { id: string; cron: string };
  };
  const runsOf = (scheduleId: string) =>
    database.db
      .selectFrom("runs")
      .select(["id", "idempotency_key", "trigger"])
      .where("schedule_id", "=", scheduleId)
      .orderBy("idempotency_key")
      .execute();
  const untilRuns = (scheduleId: string, count: number) =>
    until(
      `${count} runs of schedule ${scheduleId}`,
      async () => {
        const runs = await runsOf(scheduleId);
        return runs.length >= count ? runs : undefined;
      },
      120_000,
    );
  /** The fire each run stands for, from its idempotency key `schedule:<id>:<fire>`. */
  const fireTimes = (scheduleId: string, runs: { idempotency_key: string | null }[]) =>
    runs.map((run) => Date.parse(String(run.idempotency_key).slice(`schedule:${scheduleId}:`.length)));

  it("makes a schedule a job scheduler in Redis, and each of its ticks starts exactly one run", async () => {
    const schedule = await createSchedule({ cron: EVERY_TWO_SECONDS, input: { n: 1 } });
    // Created before the answer: the scheduler is there, with the schedule's cron and time zone.
    const scheduler = await fires.getJobScheduler(schedule.id);
    expect(scheduler).toMatchObject({ key: schedule.id, pattern: EVERY_TWO_SECONDS, tz: "UTC" });

    const runs = await untilRuns(schedule.id, 4);
    // The ticks the scheduler has produced so far (its next one included), read after the runs.
    const ticks = (await fires.getJobScheduler(schedule.id))?.iterationCount ?? 0;
    const now = await runsOf(schedule.id);
    expect(now.length).toBeGreaterThanOrEqual(runs.length);
    expect(now.length).toBeLessThanOrEqual(ticks);
    expect(now.every((run) => run.trigger === "schedule")).toBe(true);
    // One run per fire: distinct fires, each on a tick of the cron (an even second), two seconds
    // apart at least (a fire handled late may skip the next tick, never start it twice).
    const times = fireTimes(schedule.id, now);
    expect(new Set(times).size).toBe(times.length);
    for (const time of times) expect(time % (MIN_INTERVAL * 1000)).toBe(0);
    for (let i = 1; i < times.length; i++) {
      expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(MIN_INTERVAL * 1000);
    }
  });

  it("starts one run for a fire handled twice, by whichever processes take it: the database claim decides", async () => {
    // A schedule that fires once a year: its scheduler stays quiet while the test fires it by hand.
    const schedule = await createSchedule({ cron: "0 0 1 1 *", input: { n: 2 } });
    const due = Math.floor(Date.now() / 1000) * 1000 - 1000;
    await database.db
      .updateTable("schedules")
      .set({ next_fire_at: new Date(due).toISOString() })
      .where("id", "=", schedule.id)
      .execute();
    // The same fire delivered four times at once (as a stalled job handed out again would be).
    const ids = ["a", "b", "c", "d"].map((copy) => `twice-${schedule.id}-${copy}`);
    await Promise.all(
      ids.map((jobId) =>
        fires.add("fire", { scheduleId: schedule.id }, { jobId, prevMillis: due, removeOnComplete: true }),
      ),
    );
    await until("the copies to be handled", async () => {
      const left = await Promise.all(ids.map((id) => fires.getJob(id)));
      return left.every((job) => !job) ? true : undefined;
    });
    const runs = await runsOf(schedule.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]?.idempotency_key).toBe(`schedule:${schedule.id}:${new Date(due).toISOString()}`);
    const row = await database.db
      .selectFrom("schedules")
      .select(["last_fire_at", "next_fire_at"])
      .where("id", "=", schedule.id)
      .executeTakeFirstOrThrow();
    expect(row.last_fire_at).toBe(new Date(due).toISOString());
    expect(Date.parse(String(row.next_fire_at))).toBeGreaterThan(Date.now());
  });

  it("removes the scheduler when a schedule is disabled or deleted, and upserts it again when enabled", async () => {
    const stopped = await createSchedule({ cron: EVERY_TWO_SECONDS });
    // Another schedule goes on firing: its fires are the clock the stopped one is read against.
    const clock = await createSchedule({ cron: EVERY_TWO_SECONDS });
    await untilRuns(stopped.id, 1);
    const url = `${schedulesUrl()}/${stopped.id}`;

    const disabled = await call(client, "PUT", url, { cron: EVERY_TWO_SECONDS, enabled: false });
    expect(disabled.status).toBe(200);
    expect(await fires.getJobScheduler(stopped.id)).toBeUndefined();
    const enabled = await call(client, "PUT", url, { cron: EVERY_TWO_SECONDS, enabled: true });
    expect(enabled.status).toBe(200);
    expect(await fires.getJobScheduler(stopped.id)).toMatchObject({ pattern: EVERY_TWO_SECONDS });
    // A changed cron or time zone changes the scheduler too.
    const changed = await call(client, "PUT", url, { cron: "*/4 * * * * *", timezone: "Asia/Ho_Chi_Minh" });
    expect(changed.status).toBe(200);
    expect(await fires.getJobScheduler(stopped.id)).toMatchObject({
      pattern: "*/4 * * * * *",
      tz: "Asia/Ho_Chi_Minh",
    });

    expect((await call(client, "DELETE", url)).status).toBe(200);
    expect(await fires.getJobScheduler(stopped.id)).toBeUndefined();
    const delayed = await fires.getJobs(["delayed", "waiting", "prioritized"]);
    expect(delayed.filter((job) => job?.data?.scheduleId === stopped.id)).toEqual([]);
    // A fire taken just before the delete may still end; after the clock's next fire, none more.
    const clockAtDelete = (await runsOf(clock.id)).length;
    await untilRuns(clock.id, clockAtDelete + 1);
    const afterDelete = (await runsOf(stopped.id)).length;
    await untilRuns(clock.id, clockAtDelete + 4);
    expect((await runsOf(stopped.id)).length).toBe(afterDelete);
    expect((await call(client, "DELETE", `${schedulesUrl()}/${clock.id}`)).status).toBe(200);
  });

  it("refuses a bad cron or a too short interval with the catalog's code, and makes no scheduler for it", async () => {
    const before = await fires.getJobSchedulersCount();
    const bad = await call(client, "POST", schedulesUrl(), { cron: "every minute" });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe("SCHEDULE_CRON_INVALID");
    const tooShort = await call(client, "POST", schedulesUrl(), { cron: "* * * * * *" });
    expect(tooShort.status).toBe(422);
    expect(tooShort.body.error.code).toBe("SCHEDULE_INTERVAL_TOO_SHORT");
    expect(tooShort.body.error.details).toMatchObject({ min_interval_seconds: MIN_INTERVAL, interval_seconds: 1 });
    expect(await fires.getJobSchedulersCount()).toBe(before);
  });

  it("reconciles the schedulers with the database when processes start: a lost one back, a stray one gone, one each", async () => {
    const kept = await createSchedule({ cron: "0 3 * * *" });
    // As if Redis had come back empty of this scheduler, and kept one of a schedule long deleted.
    await fires.removeJobScheduler(kept.id);
    await fires.upsertJobScheduler(
      "no-such-schedule",
      { pattern: "0 4 * * *" },
      { name: "fire", data: { scheduleId: "no-such-schedule" } },
    );
    // Two processes start at once and both reconcile.
    const [first, second] = await Promise.all([startWorkerProcess(env), startWorkerProcess(env)]);
    try {
      await until("the schedulers to match the database", async () => {
        const ids = (await fires.getJobSchedulers(0, -1)).map((scheduler) => scheduler.key);
        return ids.includes(kept.id) && !ids.includes("no-such-schedule") ? ids : undefined;
      });
      const enabled = await database.db.selectFrom("schedules").select("id").where("enabled", "=", 1).execute();
      const schedulers = await fires.getJobSchedulers(0, -1);
      expect(schedulers.map((s) => s.key).sort()).toEqual(enabled.map((s) => s.id).sort());
      expect(await fires.getJobScheduler(kept.id)).toMatchObject({ pattern: "0 3 * * *", tz: "UTC" });
    } finally {
      expect(await first.stop()).toBe(0);
      expect(await second.stop()).toBe(0);
    }
  });

  it("stops the processes cleanly on SIGTERM", async () => {
    expect(await worker.stop()).toBe(0);
    expect(await api.stop()).toBe(0);
  });
});
