// The Redis mode on real processes: one API process (`superstep start`) and `superstep worker`
// processes, sharing a PostgreSQL database and a Redis server the test starts. Runs triggered on
// the API are executed by a worker, never by the API; their events reach a listener on the API
// over Redis in seq order; a job delivered twice runs the run once (the lease decides). Everything
// is ordered by what the processes say (logs, health, the gate's requests), never by sleeping.
import { randomBytes } from "node:crypto";
import { Queue } from "bullmq";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "../src/repositories/database.js";
import { RUN_QUEUE_NAME } from "../src/services/runs/redis-run-queue.js";
import { type Gate, gatedChainWorkflow, startGate } from "./engine-harness.js";
import { freePort, type RedisServer, startRedisServer } from "./redis-server.js";
import { SocketClient } from "./socket-client.js";
import { call, type StudioApi, setUp, until, waitForStatus } from "./studio-api.js";
import { openStudioEnv, type StudioEnv } from "./studio-env.js";
import {
  assertBuilt,
  reapStudioProcesses,
  runSuperstep,
  type StudioProcess,
  startStudioProcess,
  startWorkerProcess,
} from "./studio-process.js";

const ENDED = ["ok", "error", "cancelled", "timeout", "expired"];

interface StreamedEvent {
  seq: number;
  type: string;
  node_id?: string;
}

/** Reads a run's Server-Sent Events from the API until `until` says stop (or the stream ends). */
function readStream(api: StudioApi, runId: string) {
  const events: StreamedEvent[] = [];
  const waiters: { test: () => boolean; resolve: () => void }[] = [];
  const notify = () => {
    for (const waiter of [...waiters]) {
      if (!waiter.test()) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const controller = new AbortController();
  const done = (async () => {
    const response = await fetch(`${api.base}/api/runs/${runId}/stream`, {
      headers: { authorization: `Bearer ${api.token}` },
      signal: controller.signal,
    });
    if (!response.body) throw new Error("no stream body");
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block.split("\n").find((line) => line.startsWith("data: "));
        if (data) events.push(JSON.parse(data.slice(6)) as StreamedEvent);
        end = buffer.indexOf("\n\n");
      }
      notify();
    }
  })();
  return {
    events,
    done,
    /** Resolves once the events read so far satisfy `test`. */
    until: (test: (events: StreamedEvent[]) => boolean) =>
      new Promise<void>((resolve) => {
        waiters.push({ test: () => test(events), resolve });
        notify();
      }),
    close: () => controller.abort(),
  };
}

describe("Redis mode: an API process and worker processes", () => {
  let gate: Gate;
  let redis: RedisServer;
  let setup: StudioEnv;
  let env: Record<string, string>;
  let database: DatabaseHandle;
  let api: StudioProcess;
  let client: StudioApi;
  let key: string;
  let workflowIds: string[];
  let jobs: Queue;
  const workers: StudioProcess[] = [];

  beforeAll(async () => {
    assertBuilt();
    gate = await startGate();
    redis = await startRedisServer();
    setup = await openStudioEnv("redis-mode", {
      REDIS_URL: redis.url,
      JWT_SECRET: randomBytes(32).toString("hex"),
      STUDIO_ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    });
    env = setup.env;
    api = await startStudioProcess(env);
    client = { base: api.url, token: "" };
    ({ key, workflowIds } = await setUp(client, [
      gatedChainWorkflow(gate.url, "waits", 1),
      gatedChainWorkflow(gate.url, "events", 6),
    ]));
    database = setup.database();
    jobs = new Queue(RUN_QUEUE_NAME, { connection: { url: redis.url } });
  });
  afterAll(async () => {
    await reapStudioProcesses();
    await jobs?.close();
    await gate?.close();
    await setup?.close();
    await redis?.stop();
  });

  const trigger = async (workflowId: string) => {
    const response = await call(client, "POST", `/api/hooks/workflows/${workflowId}/runs`, {}, key);
    expect(response.status, JSON.stringify(response.body)).toBe(202);
    return String(response.body.data.run_id);
  };
  const workerHealth = async (worker: StudioProcess) => {
    const response = await fetch(`${worker.url}/health`);
    return { status: response.status, body: (await response.json()) as { data: Record<string, unknown> } };
  };
  const startWorker = async () => {
    const worker = await startWorkerProcess(env);
    workers.push(worker);
    return worker;
  };

  it("keeps a run queued in Redis while no worker is up (the API does not run it), and a worker that starts runs it", async () => {
    const health = (await call(client, "GET", "/api/health")).body.data;
    expect(health).toMatchObject({ status: "ok", queue: "redis", redis: "ok", executes_runs: false, db: "postgres" });

    const runId = await trigger(workflowIds[0] as string);
    // The hook's answer came after the job was stored in Redis: it waits there, and the run is queued.
    expect(await jobs.getJobCounts("waiting")).toEqual({ waiting: 1 });
    expect((await call(client, "GET", `/api/runs/${runId}`)).body.data.status).toBe("queued");
    expect(gate.arrivals).toEqual([]);

    const worker = await startWorker();
    await gate.arrived(1);
    expect(gate.arrivals).toEqual(["/waits/step1"]);
    // The worker holds the run (its liveness says it is executing one).
    const live = await workerHealth(worker);
    expect(live.status).toBe(200);
    expect(live.body.data).toMatchObject({ status: "ok", role: "worker", queue: "redis", redis: "ok", executing: 1 });
    gate.release("/waits/step1");
    const done = await waitForStatus(client, runId, ENDED);
    expect(done).toMatchObject({ status: "ok", attempt: 1, state: { step1_reply: { path: "/waits/step1" } } });
  });

  it("brings a run's events from the worker to a listener on the API, in seq order, with no gap or repeat", async () => {
    expect(workers.length).toBe(1);
    const runId = await trigger(workflowIds[1] as string);
    const stepArrivals = gate.arrivals.length;
    await gate.arrived(stepArrivals + 1);
    // Held at its first node: the listener catches up from the database, then the rest is live.
    const stream = readStream(client, runId);
    await stream.until((events) => events.some((e) => e.type === "node_started" && e.node_id === "step1"));
    gate.open();
    await stream.until((events) => events.some((e) => e.type === "run_finished"));
    await stream.done.catch(() => undefined);
    const seqs = stream.events.map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    const stored = (await call(client, "GET", `/api/runs/${runId}/events?limit=500`)).body.data as StreamedEvent[];
    expect(stream.events.map((e) => [e.seq, e.type, e.node_id ?? null])).toEqual(
      stored.map((e) => [e.seq, e.type, e.node_id ?? null]),
    );
    // Six nodes, each started and finished, after the first was held.
    expect(stream.events.filter((e) => e.type === "node_finished")).toHaveLength(6);
    expect((await call(client, "GET", `/api/runs/${runId}`)).body.data.status).toBe("ok");
  });

  it("answers a hook that waits with its run's end, heard from the worker over Redis", async () => {
    // The gate answers every request at once since the test before.
    const path = `/api/hooks/workflows/${workflowIds[1]}/runs?wait=60`;
    const response = await call(client, "POST", path, {}, key);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data).toMatchObject({ status: "ok", error: null, waiting: null });
    const run = (await call(client, "GET", `/api/runs/${response.body.data.run_id}`)).body.data;
    expect(run.status).toBe("ok");
    expect(response.body.data.output).toEqual(run.output);
  });

  it("runs a run once when its job is delivered twice: the lease decides, on two workers", async () => {
    // The first gate answers everything now: this run is held at a gate of its own.
    const gateClosed = await startGate();
    try {
      const created = await call(client, "POST", "/api/workflows", gatedChainWorkflow(gateClosed.url, "held", 1));
      await startWorker();
      const runId = await trigger(String(created.body.data.id));
      await gateClosed.arrived(1);
      const leased = await database.db
        .selectFrom("runs")
        .select(["lease_gen", "status"])
        .where("id", "=", runId)
        .executeTakeFirstOrThrow();
      expect(leased).toMatchObject({ status: "running", lease_gen: 1 });

      // The same run handed out again while a worker runs it: whichever worker takes this job
      // finds the run leased, and completes the job without running it.
      const duplicate = `${runId}_duplicate`;
      await jobs.add("run", { runId, ownerId: "ignored" }, { jobId: duplicate, removeOnComplete: true });
      await until("the duplicate job to be handled", async () => ((await jobs.getJob(duplicate)) ? undefined : true));
      gateClosed.release();
      const done = await waitForStatus(client, runId, ENDED);
      expect(done).toMatchObject({ status: "ok", attempt: 1 });

      // And once more after it ended: nothing runs.
      const late = `${runId}_late`;
      await jobs.add("run", { runId, ownerId: "ignored" }, { jobId: late, removeOnComplete: true });
      await until("the late job to be handled", async () => ((await jobs.getJob(late)) ? undefined : true));
      expect(gateClosed.arrivals).toEqual(["/held/step1"]);
      const events = (await call(client, "GET", `/api/runs/${runId}/events?limit=500`)).body.data as StreamedEvent[];
      expect(events.filter((e) => e.type === "run_started")).toHaveLength(1);
      const row = await database.db
        .selectFrom("runs")
        .select(["lease_gen", "status", "attempt"])
        .where("id", "=", runId)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: "ok", lease_gen: 1, attempt: 1 });
    } finally {
      await gateClosed.close();
    }
  });

  it("runs an editor run of an unsaved document on a worker and streams its events to the editor's socket on the API", async () => {
    const socket = new SocketClient(`${api.url.replace("http", "ws")}/ws/run?token=${client.token}`);
    try {
      await socket.opened();
      await socket.waitFor((m) => m.type === "ready");
      socket.send({ type: "start_document", document: gatedChainWorkflow(gate.url, "editor", 3), input: {} });
      const started = await socket.waitFor((m) => m.type === "started");
      const runId = String(started.run_id);
      await socket.waitFor((m) => m.event?.type === "run_finished");
      const seqs = socket.messages.filter((m) => m.type === "event").map((m) => m.event?.seq);
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
      const stored = (await call(client, "GET", `/api/runs/${runId}/events?limit=500`)).body.data as StreamedEvent[];
      expect(socket.messages.filter((m) => m.type === "event").map((m) => [m.event?.seq, m.event?.type])).toEqual(
        stored.map((e) => [e.seq, e.type]),
      );
      const row = await database.db
        .selectFrom("runs")
        .select(["status", "trigger"])
        .where("id", "=", runId)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: "ok", trigger: "editor" });
      // Executed by a worker, never by the API process (which runs no jobs in the Redis mode).
      const apiHealth = (await call(client, "GET", "/api/health")).body.data;
      expect(apiHealth.executes_runs).toBe(false);
      expect(gate.arrivals).toEqual(expect.arrayContaining(["/editor/step1", "/editor/step2", "/editor/step3"]));
    } finally {
      socket.socket.close();
    }
  });

  it("starts a worker while Redis does not answer: it stays up, logs why, and its liveness says so", async () => {
    const port = await freePort();
    const worker = await startWorkerProcess({ ...env, REDIS_URL: `redis://127.0.0.1:${port}` });
    try {
      expect(worker.output()).toContain(`Redis does not answer at redis://127.0.0.1:${port}`);
      const live = await workerHealth(worker);
      expect(live.status).toBe(200);
      expect(live.body.data).toMatchObject({ status: "degraded", redis: "unavailable", queue: "redis" });
    } finally {
      expect(await worker.stop()).toBe(0);
    }
  });

  it("refuses to start a worker on a database a newer version has migrated (exit 5, one clear line)", async () => {
    const other = await openStudioEnv("newer");
    const otherEnv = { ...env, ...other.env };
    const handle = other.database();
    try {
      expect(runSuperstep(["migrate"], otherEnv).status).toBe(0);
      await sql`insert into schema_migrations (name, timestamp) values ('9999-from-the-future', '2099-01-01T00:00:00.000Z')`.execute(
        handle.db,
      );
      const refused = runSuperstep(["worker"], { ...otherEnv, STUDIO_WORKER_HEALTH_PORT: "0" });
      expect(refused.status).toBe(5);
      expect(refused.stderr).toContain("superstep: the database was migrated by a newer version of Superstep");
      expect(refused.stderr).toContain("9999-from-the-future");
    } finally {
      await other.close();
    }
  });

  it("refuses `superstep worker` without REDIS_URL (exit 2)", () => {
    const { REDIS_URL: _unused, ...withoutRedis } = env;
    const refused = runSuperstep(["worker"], withoutRedis);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain("set REDIS_URL");
  });

  it("stops its workers cleanly on SIGTERM", async () => {
    for (const worker of workers) expect(await worker.stop()).toBe(0);
    expect(await api.stop()).toBe(0);
  });
});
