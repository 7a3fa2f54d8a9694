import { existsSync } from "node:fs";
import { join } from "node:path";
// Imported workflows through the run service: the same queue, executor, events, resume and cancel
// as every run, with the graph's own Python run by runner.py in the subprocess runtime of the
// import sandbox (real langgraph) and its checkpoints in the studio's database (SQLite and
// PostgreSQL projects).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ENV_GRAPH,
  INTERRUPT_GRAPH,
  ownImportedJob,
  SLEEPER_GRAPH,
  TWO_NODE_GRAPH,
  writeImportedJob,
} from "../../test/imported-job.js";
import { until } from "../../test/studio-api.js";
import { type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";
import type { StudioEvent } from "../engine/runtime/events.js";

/** Saves the imported workflow and starts it through its hook, as any workflow is started. */
async function startImportedRun(studio: TestStudio, owner: Session, document: Record<string, unknown>, input: unknown) {
  // The job the document names is the owner's (a job that is not there stays missing).
  const jobId = (document.imported as { job_id: string }).job_id;
  if (existsSync(join(studio.config.imports.dir, jobId, "job.json")))
    ownImportedJob(studio.config.imports.dir, jobId, owner.userId);
  const key = (
    await studio.app.inject({ method: "POST", url: "/api/api-keys", headers: owner.auth, payload: { name: "hooks" } })
  ).json().data.key;
  const saved = await studio.app.inject({
    method: "POST",
    url: "/api/workflows",
    headers: owner.auth,
    payload: document,
  });
  expect(saved.statusCode, saved.body).toBe(201);
  const started = await studio.app.inject({
    method: "POST",
    url: `/api/hooks/workflows/${saved.json().data.id}/runs`,
    headers: { authorization: `Bearer ${key}` },
    payload: { input },
  });
  expect(started.statusCode, started.body).toBe(202);
  return String(started.json().data.run_id);
}

describe("imported runs through the run service", () => {
  let studio: TestStudio;
  let owner: Session;

  beforeAll(async () => {
    studio = await startTestStudio({ STUDIO_IMPORT_RUNTIME: "subprocess", STUDIO_ENABLE_IMPORT: "1" });
    await studio.container.runs.start(60_000);
    owner = await setupOwner(studio);
  });
  afterAll(async () => {
    await studio?.close();
  });

  const importDir = () => studio.config.imports.dir;

  const startRun = (document: Record<string, unknown>, input: unknown) =>
    startImportedRun(studio, owner, document, input);
  const getRun = async (id: string) =>
    (await studio.app.inject({ method: "GET", url: `/api/runs/${id}`, headers: owner.auth })).json().data;
  const eventsOf = async (id: string): Promise<StudioEvent[]> =>
    (await studio.app.inject({ method: "GET", url: `/api/runs/${id}/events`, headers: owner.auth })).json().data;
  const settle = () => studio.container.runs.idle();

  it("runs a two-node graph to ok with its node events in order and the final state", async () => {
    const job = writeImportedJob(importDir(), "two-nodes", { "graph.py": TWO_NODE_GRAPH });
    const runId = await startRun(job.document(["step one", "step two"]), { n: 2 });
    await settle();
    const run = await getRun(runId);
    expect(run).toMatchObject({ status: "ok", state: { n: 6 }, error: null });
    const events = await eventsOf(runId);
    expect(events.map((event) => [event.seq, event.type, event.node_id ?? null])).toEqual([
      [1, "run_started", null],
      [2, "node_started", "step_one"],
      [3, "node_finished", "step_one"],
      [4, "node_started", "step_two"],
      [5, "node_finished", "step_two"],
      [6, "run_finished", null],
    ]);
    expect(events[4]?.data.output).toEqual({ n: 6 });
    // Its checkpoints are the run's, in the database: one per superstep the runner shipped.
    const checkpoints = await studio.container.database.db
      .selectFrom("checkpoints")
      .select("checkpoint_id")
      .where("thread_id", "=", runId)
      .execute();
    expect(checkpoints.length).toBeGreaterThanOrEqual(3);
    expect(job.count("one")).toBe(1);
    // Its checkpoints hold the runner's state: a fork is refused, with a code of its own.
    for (const url of [`/api/runs/${runId}/fork`, `/api/runs/${runId}/fork/preview`]) {
      const fork = await studio.app.inject({ method: "POST", url, headers: owner.auth, payload: { superstep: 1 } });
      expect(fork.statusCode, fork.body).toBe(409);
      expect(fork.json().error.code).toBe("IMPORTED_RUN_NOT_FORKABLE");
    }
  });

  it("waits at interrupt(), takes the answer through the resume API and ends ok with it", async () => {
    const job = writeImportedJob(importDir(), "ask", { "graph.py": INTERRUPT_GRAPH });
    const runId = await startRun(job.document(["prepare", "ask"]), { name: "Ana" });
    await settle();
    const waiting = await getRun(runId);
    expect(waiting.status).toBe("waiting");
    expect(waiting.waiting).toEqual({
      node_id: "ask",
      message: "What should I say to Ana?",
      fields: [{ name: "answer", type: "text", label: "Answer", required: true }],
      timeout_seconds: null,
      expires_at: null,
    });
    // The form is checked like a Human node's: the answer is required.
    const empty = await studio.app.inject({
      method: "POST",
      url: `/api/runs/${runId}/resume`,
      headers: owner.auth,
      payload: { input: {} },
    });
    expect(empty.statusCode).toBe(422);
    expect(empty.json().error.code).toBe("HUMAN_INPUT_INVALID");
    const resumed = await studio.app.inject({
      method: "POST",
      url: `/api/runs/${runId}/resume`,
      headers: owner.auth,
      payload: { input: { answer: "Good morning, Ana" } },
    });
    expect(resumed.statusCode).toBe(200);
    await settle();
    const run = await getRun(runId);
    expect(run).toMatchObject({ status: "ok", state: { name: "Ana", greeting: "Good morning, Ana" } });
    expect(job.count("prepare")).toBe(1);
    const events = await eventsOf(runId);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((event) => event.type === "run_started").map((event) => event.data.resumed)).toEqual([
      false,
      true,
    ]);
  });

  it("fails IMPORTED_ENV_MISSING naming the declared key that is not set", async () => {
    const job = writeImportedJob(importDir(), "env", { "graph.py": ENV_GRAPH, ".env.example": "SERVICE_API_KEY=\n" });
    const runId = await startRun(job.document(["read"], { env_names: ["SERVICE_API_KEY"] }), {});
    await settle();
    const run = await getRun(runId);
    expect(run.status).toBe("error");
    expect(run.error).toMatchObject({ code: "IMPORTED_ENV_MISSING", details: { names: ["SERVICE_API_KEY"] } });
  });

  it("stops the sandbox when the run is cancelled", async () => {
    const job = writeImportedJob(importDir(), "cancel", { "graph.py": SLEEPER_GRAPH });
    const runId = await startRun(job.document(["sleep"]), {});
    await until("the sleeper's node to start", async () =>
      (await eventsOf(runId)).some((event) => event.type === "node_started") ? true : undefined,
    );
    const cancelled = await studio.app.inject({
      method: "POST",
      url: `/api/runs/${runId}/cancel`,
      headers: owner.auth,
    });
    expect(cancelled.statusCode).toBe(200);
    // The turn ends (its sandbox stopped): the queue goes idle with the sleeper still asleep.
    await settle();
    expect(await getRun(runId)).toMatchObject({ status: "cancelled", error: { code: "RUN_CANCELLED" } });
    expect(job.count("sleep")).toBe(1);
  });

  it("fails clearly when the import job is gone", async () => {
    const job = writeImportedJob(importDir(), "gone", { "graph.py": TWO_NODE_GRAPH });
    const document = job.document(["step one"]);
    const runId = await startRun(
      { ...document, imported: { ...(document.imported as object), job_id: "no-such-job" } },
      {},
    );
    await settle();
    expect(await getRun(runId)).toMatchObject({
      status: "error",
      error: { code: "IMPORTED_GRAPH_LOAD_FAILED", details: { kind: "job_missing", job_id: "no-such-job" } },
    });
  });

  it("refuses to run one of its nodes alone: NODE_RUN_UNSUPPORTED with reason imported", async () => {
    const job = writeImportedJob(importDir(), "alone", { "graph.py": TWO_NODE_GRAPH });
    const saved = await studio.app.inject({
      method: "POST",
      url: "/api/workflows",
      headers: owner.auth,
      payload: job.document(["step one", "step two"]),
    });
    const response = await studio.app.inject({
      method: "POST",
      url: "/api/node-runs",
      headers: owner.auth,
      payload: { workflow_id: saved.json().data.id, node_id: "step_one", state: { n: 1 } },
    });
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json().error).toMatchObject({ code: "NODE_RUN_UNSUPPORTED", details: { reason: "imported" } });
    expect(job.count("one")).toBe(0);
  });
});

describe("imported runs on a short time limit", () => {
  let studio: TestStudio;
  let owner: Session;

  beforeAll(async () => {
    studio = await startTestStudio({ STUDIO_IMPORT_RUNTIME: "subprocess", STUDIO_RUN_TIMEOUT: "2" });
    await studio.container.runs.start(60_000);
    owner = await setupOwner(studio);
  });
  afterAll(async () => {
    await studio?.close();
  });

  it("ends a sleeper with the Sandbox stopped (time limit (2s)) error event", async () => {
    const job = writeImportedJob(studio.config.imports.dir, "sleeper", { "graph.py": SLEEPER_GRAPH });
    const run = { id: await startImportedRun(studio, owner, job.document(["sleep"]), {}) };
    await studio.container.runs.idle();
    const view = (await studio.app.inject({ method: "GET", url: `/api/runs/${run.id}`, headers: owner.auth })).json()
      .data;
    expect(view.status).toBe("error");
    expect(view.error).toMatchObject({ code: "SANDBOX_STOPPED", message: "Sandbox stopped (time limit (2s))" });
    const events: StudioEvent[] = (
      await studio.app.inject({ method: "GET", url: `/api/runs/${run.id}/events`, headers: owner.auth })
    ).json().data;
    expect(events.map((event) => event.type)).toEqual(["run_started", "node_started", "error", "run_finished"]);
    expect(events[2]?.data.error).toMatchObject({
      code: "SANDBOX_STOPPED",
      message: "Sandbox stopped (time limit (2s))",
    });
  });
});
