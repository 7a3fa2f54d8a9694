// Runs executed on run threads (STUDIO_RUN_THREADS, as `superstep start` runs them): the same runs,
// events and endings as on the thread that answers requests, each thread with its own database
// connection and its share of the turns; a trigger answered while the threads are busy; cancel
// reaching a turn on a thread; and a thread that dies mid-run, whose run goes on from its last
// checkpoint on another.
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approvalWorkflow,
  at,
  edge,
  type Gate,
  gatedWorkflow,
  httpTool,
  startGate,
} from "../../../test/engine-harness.js";
import { setupOwner, startTestStudio, type TestStudio } from "../../../test/test-studio.js";
import type { StudioEventView } from "./run.service.js";
import { RunThread } from "./run-thread.js";
import { RunThreadPool } from "./run-thread-pool.js";

interface RunView {
  id: string;
  status: string;
  state: Record<string, unknown>;
}

const LEASE_TTL_SECONDS = 2;

/** The nice value of a thread of this process, from its stat line (the name may hold spaces). */
function niceOf(taskDir: string): number {
  const stat = readFileSync(`${taskDir}/stat`, "utf8");
  // After "pid (name) ", field 3 (state) comes first; nice is field 19.
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}

describe("run threads", () => {
  let studio: TestStudio;
  let gate: Gate;
  let auth: { authorization: string };
  let key: { authorization: string };
  let pool: RunThreadPool;

  beforeAll(async () => {
    gate = await startGate();
    studio = await startTestStudio({
      STUDIO_RUN_THREADS: "2",
      STUDIO_EGRESS_ALLOW: "127.0.0.1",
      STUDIO_WORKER_CONCURRENCY: "8",
      STUDIO_USER_MAX_RUNS: "8",
      STUDIO_USER_RUN_RATE: "10000",
      STUDIO_HOOK_RATE_LIMIT: "10000",
      STUDIO_RUN_LEASE_TTL: String(LEASE_TTL_SECONDS),
    });
    pool = studio.container.runWorker as RunThreadPool;
    // Sweeps only when the test says so.
    await studio.container.runs.start(3_600_000);
    auth = (await setupOwner(studio)).auth;
    const created = await studio.app.inject({
      method: "POST",
      url: "/api/api-keys",
      headers: auth,
      payload: { name: "hooks" },
    });
    key = { authorization: `Bearer ${created.json().data.key}` };
  });
  afterAll(async () => {
    await gate.close();
    await studio.close();
  });

  const save = async (document: object) => {
    const response = await studio.app.inject({
      method: "POST",
      url: "/api/workflows",
      headers: auth,
      payload: document,
    });
    expect(response.statusCode).toBe(201);
    return response.json().data.id as string;
  };
  const hook = async (workflowId: string, input: object = {}) => {
    const response = await studio.app.inject({
      method: "POST",
      url: `/api/hooks/workflows/${workflowId}/runs`,
      headers: key,
      payload: { input },
    });
    expect(response.statusCode, response.body).toBe(202);
    return response.json().data as { run_id: string; status: string };
  };
  const run = async (id: string) =>
    (await studio.app.inject({ method: "GET", url: `/api/runs/${id}`, headers: auth })).json().data as RunView;
  const events = async (id: string) =>
    (await studio.app.inject({ method: "GET", url: `/api/runs/${id}/events?limit=1000`, headers: auth })).json()
      .data as StudioEventView[];
  const actor = async () => {
    const owner = await studio.container.auth.ownerActor();
    if (!owner) throw new Error("no owner");
    return owner;
  };

  it("are what executes queued runs when STUDIO_RUN_THREADS is set", () => {
    expect(pool).toBeInstanceOf(RunThreadPool);
    expect(pool.threads).toHaveLength(2);
    for (const thread of pool.threads) {
      expect(thread).toBeInstanceOf(RunThread);
      // Started by the first run, not before.
      expect(thread.threadId()).toBeNull();
    }
  });

  it("executes runs with a Code node, writes every event once and in order, and streams them live", async () => {
    const workflowId = await save({
      name: "code then condition",
      state: [
        { name: "n", type: "number" },
        { name: "doubled", type: "number" },
      ],
      nodes: [
        {
          id: "double",
          type: "code",
          position: at,
          data: { language: "javascript", code: "function main(s){return {doubled: s.n * 2}}", outputs: ["doubled"] },
        },
        { id: "check", type: "condition", position: at, data: { rules: [], default_label: "next" } },
      ],
      edges: [edge("start", "double"), edge("double", "check"), { ...edge("check", "end"), label: "next" }],
    });
    const first = await hook(workflowId, { n: 21 });
    const live: StudioEventView[] = [];
    // Followed as the socket follows it: from the start, live events after the catch-up.
    const stop = await studio.container.runs.follow(await actor(), first.run_id, 0, (event) => live.push(event));
    const others = await Promise.all(Array.from({ length: 20 }, (_, i) => hook(workflowId, { n: i })));
    await studio.container.runs.idle();
    stop();

    // The turns were shared: both threads started.
    expect(pool.threads.map((thread) => thread.threadId() !== null)).toEqual([true, true]);
    const expected = [
      "run_started",
      "node_started:double",
      "node_finished:double",
      "node_started:check",
      "node_finished:check",
      "run_finished",
    ];
    const shape = (trace: StudioEventView[]) => trace.map((e) => (e.node_id ? `${e.type}:${e.node_id}` : e.type));
    expect((await run(first.run_id)).state).toMatchObject({ n: 21, doubled: 42 });
    expect(shape(live)).toEqual(expected);
    expect(live.map((e) => e.seq)).toEqual(live.map((_, i) => i + 1));
    expect(live).toEqual(await events(first.run_id));
    for (const [i, other] of others.entries()) {
      const view = await run(other.run_id);
      expect(view.status).toBe("ok");
      expect(view.state).toMatchObject({ n: i, doubled: i * 2 });
      const trace = await events(other.run_id);
      expect(shape(trace)).toEqual(expected);
      expect(trace.map((e) => e.seq)).toEqual(trace.map((_, i) => i + 1));
    }
    expect(studio.container.runs.held()).toEqual({ executing: 0, queued: 0, listeners: 0 });
  });

  it("run at a lower CPU priority than the thread that answers requests, by STUDIO_RUN_THREAD_NICE", () => {
    // Started by the test before: both threads run, named as the pool names them.
    const runThreads = readdirSync("/proc/self/task")
      .map((tid) => `/proc/self/task/${tid}`)
      .filter((dir) => readFileSync(`${dir}/comm`, "utf8").trim() === "superstep runs");
    expect(runThreads).toHaveLength(2);
    const lowered = Math.min(19, niceOf("/proc/thread-self") + 10);
    expect(runThreads.map(niceOf)).toEqual([lowered, lowered]);
  });

  it("answers a trigger while every run on the threads waits, and cancels a run executing there", async () => {
    const held = await save(gatedWorkflow(gate.url, "held"));
    const executing = await Promise.all(Array.from({ length: 8 }, () => hook(held)));
    // Every slot is inside a run on the thread, each waiting for its HTTP call.
    await gate.arrived(8);
    expect(studio.container.runs.held().executing).toBe(8);
    // Each turn went to the thread with fewer turns.
    expect(pool.threads.map((thread) => thread.executing())).toEqual([4, 4]);

    const quick = await save({ name: "quick", state: [], nodes: [], edges: [edge("start", "end")] });
    const answer = await hook(quick);
    // Every slot is taken: queued, and the caller did not wait for one.
    expect(answer.status).toBe("queued");
    for (const { run_id } of executing) expect((await run(run_id)).status).toBe("running");

    const cancelled = executing[0]?.run_id as string;
    const cancel = await studio.app.inject({ method: "POST", url: `/api/runs/${cancelled}/cancel`, headers: auth });
    expect(cancel.json().data.status).toBe("cancelled");
    // The turn on the thread stops, which frees its slot for the queued run.
    await expect.poll(async () => (await run(answer.run_id)).status).toBe("ok");

    gate.releaseAll();
    await studio.container.runs.idle();
    expect((await run(cancelled)).status).toBe("cancelled");
    for (const { run_id } of executing.slice(1)) expect((await run(run_id)).status).toBe("ok");
  });

  it("resumes a run waiting at a Human node on the thread", async () => {
    const workflowId = await save(approvalWorkflow({ field: "approved" }));
    const { run_id } = await hook(workflowId);
    await studio.container.runs.idle();
    expect((await run(run_id)).status).toBe("waiting");
    const resumed = await studio.app.inject({
      method: "POST",
      url: `/api/runs/${run_id}/resume`,
      headers: auth,
      payload: { input: { approved: true } },
    });
    expect(resumed.statusCode, resumed.body).toBe(200);
    await studio.container.runs.idle();
    const view = await run(run_id);
    expect(view.status).toBe("ok");
    expect(view.state).toMatchObject({ answer: { approved: true } });
  });

  it("answer each hand-over of a run handed to the thread twice at once, and run it once", async () => {
    const before = gate.arrivals.length;
    const workflowId = await save(gatedWorkflow(gate.url, "handed-twice"));
    const { run_id } = await hook(workflowId);
    await gate.arrived(before + 1);
    const thread = pool.threads.find((t) => t.executing() === 1);
    if (!thread) throw new Error("a thread executing the run expected");
    // As the Redis queue does with a job delivered twice (a stalled job and the sweeper's): the
    // second finds the run leased and is answered at once; the first turn still counts, and ends.
    await thread.execute(run_id);
    expect(thread.executing()).toBe(1);
    gate.release("/handed-twice");
    await studio.container.runs.idle();
    expect(thread.executing()).toBe(0);
    expect((await run(run_id)).status).toBe("ok");
    expect(gate.arrivals.filter((path) => path === "/handed-twice")).toHaveLength(1);
    expect((await events(run_id)).filter((e) => e.type === "run_started")).toHaveLength(1);
  });

  it("go on from the last checkpoint when the thread executing a run dies mid-run", async () => {
    const failuresBefore = studio.container.background.view().failures;
    const gateRequestsBefore = gate.arrivals.length;
    const workflowId = await save({
      name: "checkpoint then wait",
      state: [{ name: "reply", type: "any" }],
      nodes: [
        { id: "first", type: "condition", position: at, data: { rules: [], default_label: "next" } },
        httpTool("wait", `${gate.url}/after-crash`, "reply", { timeout_ms: 120_000 }),
      ],
      edges: [edge("start", "first"), { ...edge("first", "wait"), label: "next" }],
    });
    const { run_id } = await hook(workflowId);
    await gate.arrived(gateRequestsBefore + 1);
    const [dying, other] = pool.threads[0]?.executing() === 1 ? pool.threads : [...pool.threads].reverse();
    if (!dying || !other) throw new Error("two run threads expected");
    expect(dying.executing()).toBe(1);
    const otherThreadId = other.threadId();
    // Events reach the disk a moment after the engine emits them: the thread dies once the waiting
    // node's start is written, so that what ran before it is in the log.
    await expect
      .poll(async () => (await events(run_id)).some((e) => e.type === "node_started" && e.node_id === "wait"))
      .toBe(true);

    await dying.terminate();
    await studio.container.runs.idle();
    // The lost turn is reported, and the run is still the dead thread's until its lease expires.
    expect(studio.container.background.view().failures).toBeGreaterThan(failuresBefore);
    expect((await run(run_id)).status).toBe("running");
    expect(dying.threadId()).toBeNull();
    // The other thread was not touched.
    expect(other.threadId()).toBe(otherThreadId);

    // Once the lease has expired, the sweeper queues the run again and a new thread takes it.
    await expect
      .poll(async () => {
        await studio.container.runs.sweep();
        return gate.arrivals.length;
      })
      .toBe(gateRequestsBefore + 2);
    gate.releaseAll();
    await studio.container.runs.idle();

    expect((await run(run_id)).status).toBe("ok");
    const trace = await events(run_id);
    expect(trace.map((e) => e.seq)).toEqual(trace.map((_, i) => i + 1));
    // The first node finished before the thread died: it is not run again.
    expect(trace.filter((e) => e.type === "node_finished" && e.node_id === "first")).toHaveLength(1);
    expect(trace.at(-1)).toMatchObject({ type: "run_finished", data: { status: "ok" } });
  });
});
