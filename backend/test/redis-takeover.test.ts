// Takeover in the Redis mode, under faults, on real processes: one API process (`superstep start`)
// and two `superstep worker` processes sharing a PostgreSQL server and a Redis server the test
// starts (both of its own, so that it can restart them).
//   kill points  a worker is SIGKILLed with runs at a side-effect call in flight, after a ledger
//                row, after a checkpoint (STUDIO_TEST_PAUSE_AT); fresh workers take their place,
//                every run ends `ok` on another worker (lease_gen 2) with the uncrashed state, and
//                each call reaches its receiver as often as uncrashed, the one in flight twice
//                with the same key (as crash-kill-points.test.ts asserts for one process)
//   SIGSTOP      a worker paused past its lease: another takes the run; resumed, the paused one's
//                writes are refused (lease fencing) and the run ends ok once, its events whole
//   1,000 hooks  triggered across the API, 50 in flight: 1,000 runs, each ended ok once
//   restarts     Redis (same port, same append-only file) and PostgreSQL (same port and data)
//                restarted with runs in the middle (their writes meeting PostgreSQL's outage):
//                every run ends ok, none lost
//   Redis empty  Redis restarted with its data gone while runs wait in its queue: the sweeper
//                queues them again from the database and each runs once
// Ordered by what the processes say (their logs, health answers, the receivers' requests, rows),
// never by sleeping.
import { randomBytes } from "node:crypto";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Queue } from "bullmq";
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { RUN_QUEUE_NAME } from "../src/services/runs/redis-run-queue.js";
import { callCounts, callsOf, normalise, type Receivers, type RunRef, startReceivers } from "./crash-receivers.js";
import { at, edge, gatedChainWorkflow, httpTool, startGate } from "./engine-harness.js";
import { type PostgresCluster, startPostgresCluster } from "./postgres-cluster.js";
import { type RedisServer, startRedisServer } from "./redis-server.js";
import { call, type StudioApi, setUp, until, waitForStatus } from "./studio-api.js";
import { openStudioEnv, type StudioEnv } from "./studio-env.js";
import {
  assertBuilt,
  reapStudioProcesses,
  type StudioProcess,
  startStudioProcess,
  startWorkerProcess,
} from "./studio-process.js";

// Long enough that a live worker on a busy machine keeps its leases: they are renewed from the
// run thread, which also runs the engine and loads the node types' packages on first use, and
// under a load of several times the cores a 2-3 s lease was sometimes taken from a live run.
// Short, so that takeovers stay quick.
const LEASE_TTL_S = 5;
const ENDED = ["ok", "error", "cancelled", "timeout", "expired"];
const PAUSE_MARKER = "superstep-test-pause"; // TEST_PAUSE_MARKER of engine/runtime/test-pause.ts
const RUNS_PER_POINT = 7;
const HOOKS = 1000;
const HOOKS_IN_FLIGHT = 50;

type Kind = "http" | "llm" | "email";
type Position = "first" | "middle" | "last";
type KillPoint = "call" | "ledger" | "checkpoint";
const KINDS: Kind[] = ["http", "llm", "email"];
const POSITIONS: Position[] = ["first", "middle", "last"];
// In this order: the workers of one point are replaced by workers set up for the next one.
const POINTS: KillPoint[] = ["call", "ledger", "checkpoint"];

interface Scenario {
  id: string;
  kind: Kind;
  position: Position;
  point: KillPoint;
}

/** RUNS_PER_POINT runs per kill point, going through every node type at every position. */
function allScenarios(): Scenario[] {
  return POINTS.flatMap((point, p) =>
    Array.from({ length: RUNS_PER_POINT }, (_, i) => {
      const combo = (p * RUNS_PER_POINT + i) % (KINDS.length * POSITIONS.length);
      return {
        id: `${point}${i}`,
        point,
        kind: KINDS[combo % KINDS.length] as Kind,
        position: POSITIONS[Math.floor(combo / KINDS.length)] as Position,
      };
    }),
  );
}

/** The node under test: one id per kill point, so a worker's pause concerns that point's runs only. */
const nodeUnderTest = (s: Scenario) => `${s.point}_x`;

function sideEffectNode(s: Scenario, receivers: Receivers) {
  const id = nodeUnderTest(s);
  // `hold-<tag>` tells the receivers which run's call this is (the tag is in the run's context).
  const mark = "hold-{{context.tag}}";
  switch (s.kind) {
    case "http":
      return httpTool(id, `${receivers.httpUrl}/${s.id}/x?mark=${mark}`, "x", { body: { node: id } });
    case "llm":
      return {
        id,
        type: "llm",
        position: at,
        data: { model: "fake-model", base_url: receivers.llmUrl, prompt: `node=${id} ${mark}`, output_field: "x" },
      };
    case "email":
      return {
        id,
        type: "send_email",
        position: at,
        data: { to: "ops@example.com", subject: `node=${id}`, body: `Takeover test ${mark}`, output_field: "x" },
      };
  }
}

function scenarioWorkflow(s: Scenario, receivers: Receivers) {
  const filler = (name: string) => httpTool(`${s.id}_${name}`, `${receivers.httpUrl}/${s.id}/${name}`, name);
  const x = sideEffectNode(s, receivers);
  const [a, b] = [filler("a"), filler("b")];
  const nodes = s.position === "first" ? [x, a, b] : s.position === "middle" ? [a, x, b] : [a, b, x];
  return {
    name: `${s.id}: ${s.kind} node (${s.position}) killed at ${s.point}`,
    state: ["a", "b", "x"].map((name) => ({ name, type: "any" })),
    nodes,
    edges: nodes.map((node, i) => edge(i === 0 ? "start" : (nodes[i - 1] as { id: string }).id, node.id)),
  };
}

interface RunEvent {
  seq: number;
  type: string;
  node_id?: string | null;
  data: Record<string, unknown>;
}

describe("Redis mode: takeover when workers, Redis or PostgreSQL fail", () => {
  let postgres: PostgresCluster;
  let redis: RedisServer;
  let receivers: Receivers;
  let setup: StudioEnv;
  let env: Record<string, string>;
  let api: StudioProcess;
  let client: StudioApi;
  let key: string;
  /** The worker processes alive now. */
  let workers: StudioProcess[] = [];

  beforeAll(async () => {
    assertBuilt();
    [postgres, redis, receivers] = await Promise.all([startPostgresCluster(), startRedisServer(), startReceivers()]);
    setup = await openStudioEnv(
      "takeover",
      {
        REDIS_URL: redis.url,
        JWT_SECRET: randomBytes(32).toString("hex"),
        STUDIO_ENCRYPTION_KEY: randomBytes(32).toString("hex"),
        STUDIO_SMTP_URL: receivers.smtpUrl,
        STUDIO_RUN_LEASE_TTL: String(LEASE_TTL_S),
        STUDIO_WORKER_CONCURRENCY: "16",
        STUDIO_USER_MAX_RUNS: "16",
        STUDIO_USER_RUN_RATE: "100000",
        STUDIO_HOOK_RATE_LIMIT: "1000000",
        STUDIO_USER_MAX_QUEUED: String(2 * HOOKS),
      },
      { adminUrl: postgres.adminUrl },
    );
    env = setup.env;
    api = await startStudioProcess(env);
    client = { base: api.url, token: "" };
    ({ key } = await setUp(client, []));
  });
  /** A worker stopped with SIGSTOP, resumed after each test whatever happened (a timed-out test runs no `finally`). */
  let stoppedWorker: StudioProcess | null = null;
  afterEach(() => {
    if (stoppedWorker) process.kill(stoppedWorker.child.pid as number, "SIGCONT");
    stoppedWorker = null;
  });
  afterAll(async () => {
    await reapStudioProcesses();
    // Each on its own: a test that failed with PostgreSQL down must still take Redis down.
    const cleanups = [() => receivers?.close(), () => redis?.stop(), () => setup?.close(), () => postgres?.stop()];
    for (const cleanup of cleanups)
      await Promise.resolve()
        .then(cleanup)
        .catch((error: unknown) => console.warn("cleanup failed:", error));
  });

  const startWorkers = async (extra: Record<string, string> = {}) => {
    const started = await Promise.all([
      startWorkerProcess({ ...env, ...extra }),
      startWorkerProcess({ ...env, ...extra }),
    ]);
    workers.push(...started);
    return started;
  };
  /** Two workers without a pause up (each test can also run alone). */
  const twoWorkers = async () => {
    const missing = Math.max(0, 2 - workers.length);
    workers.push(...(await Promise.all(Array.from({ length: missing }, () => startWorkerProcess(env)))));
  };
  const kill = async (dead: StudioProcess[]) => {
    await Promise.all(dead.map((worker) => worker.kill()));
    workers = workers.filter((worker) => !dead.includes(worker));
  };
  const createWorkflow = async (document: object) => {
    const created = await call(client, "POST", "/api/workflows", document);
    expect(created.status, JSON.stringify(created.body.error)).toBe(201);
    return String(created.body.data.id);
  };
  const trigger = async (workflowId: string, body: object = {}) => {
    const response = await call(client, "POST", `/api/hooks/workflows/${workflowId}/runs`, body, key);
    expect(response.status, JSON.stringify(response.body)).toBe(202);
    return String(response.body.data.run_id);
  };
  const eventsOf = async (runId: string) =>
    (await call(client, "GET", `/api/runs/${runId}/events?limit=1000`)).body.data as RunEvent[];
  const rowOf = (runId: string) =>
    setup
      .database()
      .db.selectFrom("runs")
      .select(["status", "lease_gen", "attempt"])
      .where("id", "=", runId)
      .executeTakeFirstOrThrow();
  const workerHealth = async (worker: StudioProcess) => {
    const response = await fetch(`${worker.url}/health`);
    return { status: response.status, body: (await response.json()) as { data: Record<string, unknown> } };
  };
  /** A run's log is whole: seqs 1..n, one start per attempt, one ending, and it is the last event. */
  const expectWholeLog = (events: RunEvent[], attempts: number) => {
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
    expect(events.filter((e) => e.type === "run_started").map((e) => e.data.attempt)).toEqual(
      Array.from({ length: attempts }, (_, i) => i + 1),
    );
    expect(events.filter((e) => e.type === "run_finished")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "run_finished", data: { status: "ok" } });
  };

  it("takes over runs of SIGKILLed workers at every kill point: ended ok elsewhere, calls as uncrashed", async () => {
    const scenarios = allScenarios();
    expect(scenarios.length).toBeGreaterThanOrEqual(20);
    for (const point of POINTS)
      expect(new Set(scenarios.filter((s) => s.point === point).map((s) => `${s.kind} ${s.position}`)).size).toBe(
        RUNS_PER_POINT,
      );
    const workflowIds = new Map<string, string>();
    for (const s of scenarios) workflowIds.set(s.id, await createWorkflow(scenarioWorkflow(s, receivers)));
    const runOf = async (s: Scenario, tag: string): Promise<RunRef> => ({
      runId: await trigger(workflowIds.get(s.id) as string, { context: { tag } }),
      tag,
    });

    // 1. Each workflow once without a crash, on two workers without a pause: the reference.
    let current = await startWorkers();
    const references = new Map<string, { state: string; counts: Record<string, number> }>();
    // A few at a time: a reference must not lose its lease to a worker busy starting many runs.
    for (let i = 0; i < scenarios.length; i += 3) {
      await Promise.all(
        scenarios.slice(i, i + 3).map(async (s) => {
          const run = await runOf(s, `${s.id}-ref`);
          const ended = await waitForStatus(client, run.runId, ENDED);
          expect(ended.status, `${s.id} (uncrashed): ${JSON.stringify(ended.error)}`).toBe("ok");
          const counts = callCounts(receivers, run);
          expect(Object.values(counts), s.id).toEqual([1, 1, 1]);
          references.set(s.id, { state: normalise(JSON.stringify(ended.state), run), counts });
        }),
      );
    }

    // 2. Per kill point: its runs all reach the point, fresh workers (set up for the next point)
    // start, the workers holding the runs are killed, and the fresh ones take the runs over.
    const verify = async (s: Scenario, run: RunRef) => {
      const ended = await waitForStatus(client, run.runId, ENDED);
      expect(ended.status, `${s.id}: ${JSON.stringify(ended.error)}`).toBe("ok");
      const reference = references.get(s.id) as { state: string; counts: Record<string, number> };
      expect(normalise(JSON.stringify(ended.state), run), `${s.id}: state`).toBe(reference.state);
      // Taken over once: the second lease of the run.
      expect(await rowOf(run.runId), s.id).toMatchObject({ status: "ok", lease_gen: 2, attempt: 2 });
      const node = nodeUnderTest(s);
      // Every call as often as uncrashed; the one in flight at the kill twice, with the same key.
      const expected = Object.fromEntries(
        Object.entries(reference.counts).map(([k, n]) => [k, s.point === "call" && k.includes(node) ? 2 : n]),
      );
      expect(callCounts(receivers, run), `${s.id}: calls received`).toEqual(expected);
      if (s.point === "call" && s.kind === "http") {
        const attempts = callsOf(receivers, run)
          .filter((c) => c.key.includes(node))
          .map((c) => c.attempt);
        expect(attempts.sort(), s.id).toEqual(["1", "2"]);
      }

      const events = await eventsOf(run.runId);
      expectWholeLog(events, 2);
      const starts = events.filter((e) => e.type === "run_started");
      const after = events.slice(events.indexOf(starts[1] as RunEvent));
      const startedAgain = after.filter((e) => e.type === "node_started" && e.node_id === node);
      const reused = after.filter((e) => e.type === "node_finished" && e.node_id === node).map((e) => e.data.reused);
      if (s.point === "call") expect(reused, `${s.id}: called again`).toEqual([false]);
      if (s.point === "ledger") expect(reused, `${s.id}: taken from the ledger`).toEqual([true]);
      if (s.point === "checkpoint") expect(startedAgain, `${s.id}: not run again`).toEqual([]);
    };

    for (const [p, point] of POINTS.entries()) {
      // The workers up now were set up for this point (the first ones with no pause: calls are held).
      const round = scenarios.filter((s) => s.point === point);
      const runs = await Promise.all(
        round.map(async (s) => {
          const tag = `${s.id}-crash`;
          const held = point === "call" ? receivers.hold(`hold-${tag}`, 1) : null;
          const run = await runOf(s, tag);
          return { s, run, held };
        }),
      );
      const holders = current;
      await Promise.all(
        runs.map(({ s, run, held }) => {
          if (held) return held;
          const marker = `${PAUSE_MARKER} ${point}:${nodeUnderTest(s)} run=${run.runId} `;
          return Promise.any(holders.map((w) => w.untilOutput(`${s.id} to pause`, (out) => out.includes(marker))));
        }),
      );
      const next = POINTS[p + 1];
      current = await startWorkers(next && next !== "call" ? { STUDIO_TEST_PAUSE_AT: `${next}:${next}_x` } : {});
      await kill(holders);
      await Promise.all(runs.map(({ s, run }) => verify(s, run)));
    }
    expect(workers).toHaveLength(2);
  });

  it("fences off a worker paused past its lease (SIGSTOP): another takes the run, the paused one's writes are refused", async () => {
    const gate = await startGate();
    let step = "start";
    onTestFailed(() => {
      console.log(`SIGSTOP test stopped at: ${step}`);
      for (const w of workers) console.log(w.output().split("\n").slice(-15).join("\n"));
    });
    await twoWorkers();
    try {
      const workflowId = await createWorkflow(gatedChainWorkflow(gate.url, "paused", 1));
      const runId = await trigger(workflowId);
      await gate.arrived(1);
      expect(await rowOf(runId)).toMatchObject({ status: "running", lease_gen: 1 });
      const executing = await Promise.all(workers.map(async (w) => (await workerHealth(w)).body.data.executing));
      expect([...executing].sort()).toEqual([0, 1]);
      const paused = workers[executing.indexOf(1)] as StudioProcess;
      const other = workers.find((w) => w !== paused) as StudioProcess;

      // Paused with its call in flight: its lease (and its job's lock) run out; the other worker
      // takes the run (lease_gen 2) and makes the call again, with the same key.
      process.kill(paused.child.pid as number, "SIGSTOP");
      stoppedWorker = paused;
      step = "the takeover's call";
      await gate.arrived(2);
      expect(gate.headers[1]?.["idempotency-key"]).toBe(gate.headers[0]?.["idempotency-key"]);
      expect([gate.headers[0]?.["x-studio-attempt"], gate.headers[1]?.["x-studio-attempt"]]).toEqual(["1", "2"]);
      expect(await rowOf(runId)).toMatchObject({ status: "running", lease_gen: 2, attempt: 2 });
      expect((await workerHealth(other)).body.data.executing).toBe(1);

      // The paused worker's call is answered first, and it resumes: what it writes next (the
      // node's events, its checkpoint) is refused, and it stops the run on its side.
      gate.release("/paused/step1");
      process.kill(paused.child.pid as number, "SIGCONT");
      stoppedWorker = null;
      step = "the paused worker letting go";
      await paused.untilOutput("the paused worker to let the run go", (out) =>
        out
          .split("\n")
          .some(
            (line) =>
              line.includes(runId) &&
              /taken over by another worker|lease lost: the run was cancelled or taken over/.test(line),
          ),
      );
      expect(await rowOf(runId)).toMatchObject({ status: "running", lease_gen: 2 });
      gate.release("/paused/step1");
      step = "the run's end";
      const done = await waitForStatus(client, runId, ENDED);
      expect(done).toMatchObject({ status: "ok", attempt: 2, state: { step1_reply: { path: "/paused/step1" } } });
      const events = await eventsOf(runId);
      expectWholeLog(events, 2);
      // The node finished once, in the second attempt: the paused worker's node_finished never landed.
      const finished = events.filter((e) => e.type === "node_finished");
      expect(finished.map((e) => e.node_id)).toEqual(["step1"]);
      const second = events.find((e) => e.type === "run_started" && e.data.attempt === 2) as RunEvent;
      expect((finished[0] as RunEvent).seq).toBeGreaterThan(second.seq);
      expect(await rowOf(runId)).toMatchObject({ status: "ok", lease_gen: 2, attempt: 2 });
      expect(gate.arrivals).toEqual(["/paused/step1", "/paused/step1"]);

      // Both workers are alive and serve: the resumed one is idle, and the next runs end ok.
      step = "the resumed worker idle";
      const health = await until("the resumed worker to have let the run go", async () => {
        const answer = await workerHealth(paused);
        return answer.body.data.executing === 0 ? answer : undefined;
      });
      expect(health).toMatchObject({ status: 200, body: { data: { status: "ok", role: "worker" } } });
      gate.open();
      step = "more runs";
      const more = await Promise.all(Array.from({ length: 4 }, () => trigger(workflowId)));
      for (const id of more) expect(await waitForStatus(client, id, ENDED)).toMatchObject({ status: "ok" });
    } finally {
      await gate.close();
    }
  });

  it(`runs ${HOOKS} hook triggers across the API (${HOOKS_IN_FLIGHT} in flight) to ok, none lost or repeated`, async () => {
    await twoWorkers();
    const workflowId = await createWorkflow({
      name: "tiny",
      state: [{ name: "n", type: "number" }],
      nodes: [],
      edges: [edge("start", "end")],
    });
    const runIds: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: HOOKS_IN_FLIGHT }, async () => {
        while (next < HOOKS) {
          const n = next++;
          runIds.push(await trigger(workflowId, { input: { n } }));
        }
      }),
    );
    expect(new Set(runIds).size).toBe(HOOKS);
    const db = setup.database().db;
    const rows = await until(
      `${HOOKS} runs to end`,
      async () => {
        const found = await db
          .selectFrom("runs")
          .select(["id", "status", "output"])
          .where("workflow_id", "=", workflowId)
          .execute();
        return found.length === HOOKS && found.every((r) => ENDED.includes(r.status)) ? found : undefined;
      },
      300_000,
    );
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(runIds));
    expect(rows.filter((r) => r.status !== "ok")).toEqual([]);
    expect(new Set(rows.map((r) => (JSON.parse(String(r.output)) as { n: number }).n)).size).toBe(HOOKS);
    const events = await db
      .selectFrom("run_events")
      .select(["run_id", "seq", "type", "data"])
      .where("run_id", "in", runIds)
      .orderBy("run_id")
      .orderBy("seq")
      .execute();
    const byRun = new Map<string, RunEvent[]>();
    for (const e of events) {
      const list = byRun.get(e.run_id) ?? [];
      list.push({ seq: e.seq, type: e.type, data: JSON.parse(e.data) as Record<string, unknown> });
      byRun.set(e.run_id, list);
    }
    expect(byRun.size).toBe(HOOKS);
    for (const [runId, list] of byRun) {
      const attempts = list.filter((e) => e.type === "run_started").length;
      expect(attempts, runId).toBeGreaterThanOrEqual(1);
      expectWholeLog(list, attempts);
    }
  });

  it("finishes the runs in the middle of a Redis restart (same port, same append-only file): none lost", async () => {
    const gate = await startGate();
    await twoWorkers();
    try {
      const workflowId = await createWorkflow(gatedChainWorkflow(gate.url, "redis", 2));
      const before = await Promise.all(Array.from({ length: 4 }, () => trigger(workflowId)));
      await gate.arrived(before.length);

      await redis.kill();
      const away = await until("the API to say Redis is away", async () => {
        const health = (await call(client, "GET", "/api/health")).body.data;
        return health.redis === "unavailable" ? health : undefined;
      });
      expect(away).toMatchObject({ status: "degraded", queue: "redis" });
      // Triggers are taken while Redis is away: the runs wait, queued in the database.
      const during = await Promise.all(Array.from({ length: 3 }, () => trigger(workflowId)));
      for (const id of during) expect((await rowOf(id)).status).toBe("queued");
      // The runs executing go on without Redis (their lease and writes are in the database).
      gate.open();
      for (const id of before) expect(await waitForStatus(client, id, ENDED)).toMatchObject({ status: "ok" });

      await redis.restart();
      const all = [...before, ...during];
      for (const id of all) {
        const done = await waitForStatus(client, id, ENDED);
        expect(done, id).toMatchObject({ status: "ok", state: { step2_reply: { path: "/redis/step2" } } });
        expectWholeLog(await eventsOf(id), done.attempt);
      }
      // Every run's two calls once each: a job handed out again after the restart ran nothing twice.
      const arrivals = gate.arrivals.filter((path) => path === "/redis/step2");
      expect(arrivals).toHaveLength(all.length);
      await until("the API to say Redis answers", async () => {
        const health = (await call(client, "GET", "/api/health")).body.data;
        return health.redis === "ok" && health.status === "ok" ? health : undefined;
      });
      for (const worker of workers) expect(worker.child.exitCode).toBeNull();
    } finally {
      await gate.close();
    }
  });

  it("loses no queued run when Redis comes back empty (its data gone): the sweeper queues them again", async () => {
    const gate = await startGate();
    const jobs = new Queue(RUN_QUEUE_NAME, { connection: { url: redis.url } });
    try {
      const workflowId = await createWorkflow(gatedChainWorkflow(gate.url, "empty", 2));
      // No worker takes them: the runs' jobs wait in Redis.
      for (const worker of [...workers]) expect(await worker.stop()).toBe(0);
      workers = [];
      const queued = await Promise.all(Array.from({ length: 4 }, () => trigger(workflowId)));
      expect((await jobs.getJobCounts("waiting")).waiting).toBeGreaterThanOrEqual(queued.length);
      await jobs.close();

      // Redis dies and comes back with nothing: its append-only files are gone with the disk.
      await redis.kill();
      for (const entry of readdirSync(redis.dir)) rmSync(join(redis.dir, entry), { recursive: true, force: true });
      await redis.restart();
      const emptied = new Queue(RUN_QUEUE_NAME, { connection: { url: redis.url } });
      try {
        expect((await emptied.getJobCounts("waiting")).waiting).toBe(0);
      } finally {
        await emptied.close();
      }
      for (const id of queued) expect((await rowOf(id)).status).toBe("queued");

      // Workers come up; the runs are queued again from the database and each runs once.
      await twoWorkers();
      gate.open();
      for (const id of queued) {
        const done = await waitForStatus(client, id, ENDED);
        expect(done, id).toMatchObject({ status: "ok", attempt: 1, state: { step2_reply: { path: "/empty/step2" } } });
        expectWholeLog(await eventsOf(id), 1);
      }
      expect(gate.arrivals.filter((path) => path === "/empty/step1")).toHaveLength(queued.length);
      expect(gate.arrivals.filter((path) => path === "/empty/step2")).toHaveLength(queued.length);
    } finally {
      await jobs.close().catch(() => {});
      await gate.close();
    }
  });

  it("finishes the runs in the middle of a PostgreSQL restart (same port, same data): none lost", async () => {
    const gate = await startGate();
    onTestFailed(() => {
      for (const w of workers) console.log(w.output().split("\n").slice(-25).join("\n"));
    });
    await twoWorkers();
    try {
      const workflowId = await createWorkflow(gatedChainWorkflow(gate.url, "pg", 2));
      const runs = await Promise.all(Array.from({ length: 4 }, () => trigger(workflowId)));
      await gate.arrived(runs.length);
      // Killed once each run's node start is on disk (events reach it a moment after the call
      // left), with every run's call in flight.
      await until("every run's node start on disk", async () => {
        const rows = await setup
          .database()
          .db.selectFrom("run_events")
          .select("run_id")
          .where("run_id", "in", runs)
          .where("type", "=", "node_started")
          .execute();
        return rows.length === runs.length ? rows : undefined;
      });

      postgres.kill();
      const away = await call(client, "GET", "/api/health");
      expect(away.status).toBe(503);
      expect(away.body.error.code).toBe("DATABASE_UNAVAILABLE");
      const refused = await call(client, "POST", `/api/hooks/workflows/${workflowId}/runs`, {}, key);
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe("DATABASE_UNAVAILABLE");
      for (const worker of workers) expect((await workerHealth(worker)).status).toBe(503);
      // Away past a lease renewal: the workers holding the runs could not renew their leases.
      await Promise.any(
        workers.map((w) => w.untilOutput("a lease renewal to fail", (out) => out.includes("lease not renewed"))),
      );
      // The calls are answered while PostgreSQL is away: the runs' next writes meet the outage. A
      // turn whose write is refused pauses with no ending (as a crash would) and is taken over; an
      // ending that cannot be written is tried again until the database answers.
      gate.open();
      await Promise.any(
        workers.map((w) =>
          w.untilOutput("a run's write to meet the outage", (out) =>
            ["run paused: the database did not answer", "run ending not recorded; trying again"].some((line) =>
              out.includes(line),
            ),
          ),
        ),
      );

      postgres.restart();
      await until("the API to answer again", async () => {
        const health = await call(client, "GET", "/api/health");
        return health.status === 200 && health.body.data.status === "ok" ? health : undefined;
      });
      // After the restart each run goes on from its last checkpoint (taken over once its lease ran
      // out) and ends ok; a call whose result did not reach the ledger was made again.
      for (const id of runs) {
        const done = await waitForStatus(client, id, ENDED);
        expect(done, id).toMatchObject({ status: "ok", state: { step2_reply: { path: "/pg/step2" } } });
        expectWholeLog(await eventsOf(id), done.attempt);
      }
      const after = await trigger(workflowId);
      expect(await waitForStatus(client, after, ENDED)).toMatchObject({ status: "ok" });
      for (const worker of workers) {
        expect(worker.child.exitCode).toBeNull();
        expect(await workerHealth(worker)).toMatchObject({ status: 200 });
      }
    } finally {
      await gate.close();
    }
  });
});
