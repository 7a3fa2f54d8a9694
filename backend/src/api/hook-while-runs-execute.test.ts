// Accepting a trigger never waits behind run work: a hook call is answered while every worker is
// busy with runs that cannot finish yet, and runs written in shared transactions keep every
// event, in order.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { at, edge, type Gate, gatedWorkflow, startGate } from "../../test/engine-harness.js";
import { setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";

const EXECUTING = 50;

interface RunEvent {
  seq: number;
  type: string;
  node_id?: string;
}

describe("hooks while runs execute", () => {
  let studio: TestStudio;
  let gate: Gate;
  let base: string;
  let key: string;
  let auth: { authorization: string };

  beforeAll(async () => {
    gate = await startGate();
    studio = await startTestStudio({
      // As `superstep start` runs them: on run threads.
      STUDIO_RUN_THREADS: "2",
      STUDIO_EGRESS_ALLOW: "127.0.0.1",
      STUDIO_WORKER_CONCURRENCY: String(EXECUTING),
      STUDIO_USER_MAX_RUNS: String(EXECUTING),
      STUDIO_USER_RUN_RATE: "10000",
      STUDIO_USER_MAX_QUEUED: "10000",
      STUDIO_HOOK_RATE_LIMIT: "10000",
    });
    await studio.container.runs.start(60_000);
    auth = (await setupOwner(studio)).auth;
    key = (
      await studio.app.inject({ method: "POST", url: "/api/api-keys", headers: auth, payload: { name: "hooks" } })
    ).json().data.key as string;
    // Over a real socket, as another system calls it.
    await studio.app.listen({ port: 0, host: "127.0.0.1" });
    base = `http://127.0.0.1:${(studio.app.server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await gate.close();
    await studio.close();
  });

  const save = async (document: object) =>
    (await studio.app.inject({ method: "POST", url: "/api/workflows", headers: auth, payload: document })).json().data
      .id as string;
  const hook = async (workflowId: string) => {
    const response = await fetch(`${base}/api/hooks/workflows/${workflowId}/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: "{}",
    });
    return { status: response.status, body: (await response.json()) as { data: { run_id: string; status: string } } };
  };
  const run = async (id: string) =>
    (await studio.app.inject({ method: "GET", url: `/api/runs/${id}`, headers: auth })).json().data as {
      status: string;
    };
  const events = async (id: string) =>
    (await studio.app.inject({ method: "GET", url: `/api/runs/${id}/events?limit=1000`, headers: auth })).json()
      .data as RunEvent[];

  it(`answers a trigger while ${EXECUTING} runs execute, before any of them finishes`, async () => {
    const held = await save(gatedWorkflow(gate.url, "held"));
    const quick = await save({
      name: "quick",
      state: [{ name: "n", type: "number" }],
      nodes: [],
      edges: [edge("start", "end")],
    });
    const answers = await Promise.all(Array.from({ length: EXECUTING }, () => hook(held)));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 202));
    const executing = answers.map((a) => a.body.data.run_id);
    // Every worker is now inside a run, each waiting for its HTTP call.
    await gate.arrived(EXECUTING);

    const answer = await hook(quick);
    expect(answer.status).toBe(202);
    // No worker is free: the new run waits its turn, and the caller was not made to wait for one.
    expect(answer.body.data.status).toBe("queued");
    // When the answer came, none of the executing runs had finished: none has a run_finished event.
    for (const id of executing) {
      expect((await events(id)).some((e) => e.type === "run_finished")).toBe(false);
      expect((await run(id)).status).toBe("running");
    }

    gate.open();
    await studio.container.runs.idle();
    for (const id of [...executing, answer.body.data.run_id]) expect((await run(id)).status).toBe("ok");
  });

  it("records every event of concurrent runs once and in order", async () => {
    const chain = await save({
      name: "chain",
      state: [{ name: "log", type: "list", reducer: "append" }],
      nodes: Array.from({ length: 5 }, (_, i) => ({
        id: `c${i}`,
        type: "condition",
        position: at,
        data: { rules: [], default_label: "next" },
      })),
      edges: [
        edge("start", "c0"),
        ...Array.from({ length: 5 }, (_, i) => ({ ...edge(`c${i}`, i < 4 ? `c${i + 1}` : "end"), label: "next" })),
      ],
    });
    const ids = await Promise.all(Array.from({ length: 100 }, async () => (await hook(chain)).body.data.run_id));
    expect(new Set(ids).size).toBe(100);
    await studio.container.runs.idle();
    for (const id of ids) {
      expect((await run(id)).status).toBe("ok");
      const trace = await events(id);
      expect(trace.map((e) => e.seq)).toEqual(trace.map((_, i) => i + 1));
      expect(trace.map((e) => (e.node_id ? `${e.type}:${e.node_id}` : e.type))).toEqual([
        "run_started",
        ...Array.from({ length: 5 }, (_, i) => [`node_started:c${i}`, `node_finished:c${i}`]).flat(),
        "run_finished",
      ]);
    }
  });
});
