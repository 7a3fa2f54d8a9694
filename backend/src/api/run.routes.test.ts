import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approvalWorkflow,
  edge,
  type Gate,
  gatedWorkflow,
  httpTool,
  type Receiver,
  startGate,
  startReceiver,
} from "../../test/engine-harness.js";
import { registerMember, type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";

describe("runs: hooks, lifecycle and events", () => {
  let studio: TestStudio;
  let owner: Session;
  let other: Session;
  let key: { authorization: string };
  let receiver: Receiver;
  // Holds the calls of runs that must still be in flight when the test acts on them.
  let gate: Gate;

  beforeAll(async () => {
    receiver = await startReceiver((request) => ({ json: { path: request.path } }));
    gate = await startGate();
    // One user fires hundreds of triggers here; the per-user limits have tests of their own.
    studio = await startTestStudio({
      STUDIO_ALLOW_SIGNUP: "1",
      STUDIO_EGRESS_ALLOW: "127.0.0.1",
      STUDIO_USER_RUN_RATE: "10000",
      STUDIO_USER_MAX_QUEUED: "10000",
    });
    await studio.container.runs.start(60_000);
    owner = await setupOwner(studio);
    other = await registerMember(studio, "other@example.com");
    const created = await studio.app.inject({
      method: "POST",
      url: "/api/api-keys",
      headers: owner.auth,
      payload: { name: "hooks" },
    });
    key = { authorization: `Bearer ${created.json().data.key}` };
  });
  afterAll(async () => {
    await studio.close();
    await receiver.close();
    await gate.close();
  });

  const save = async (document: object, session = owner) =>
    (
      await studio.app.inject({ method: "POST", url: "/api/workflows", headers: session.auth, payload: document })
    ).json().data.id as string;
  const hook = (workflowId: string, payload: object = {}, headers: Record<string, string> = {}) =>
    studio.app.inject({
      method: "POST",
      url: `/api/hooks/workflows/${workflowId}/runs`,
      headers: { ...key, ...headers },
      payload,
    });
  const getRun = async (id: string, session = owner) =>
    (await studio.app.inject({ method: "GET", url: `/api/runs/${id}`, headers: session.auth })).json().data;
  const settle = () => studio.container.runs.idle();

  const chain = () => ({
    name: "chain",
    state: [
      { name: "a", type: "any" },
      { name: "b", type: "any" },
    ],
    nodes: [httpTool("t1", `${receiver.url}/one`, "a"), httpTool("t2", `${receiver.url}/two`, "b")],
    edges: [edge("start", "t1"), edge("t1", "t2")],
  });

  it("starts a run from a hook with an API key and records its state, events and metrics", async () => {
    const workflowId = await save(chain());
    const response = await hook(workflowId);
    expect(response.statusCode).toBe(202);
    const runId = response.json().data.run_id;
    await settle();
    const run = await getRun(runId);
    expect(run).toMatchObject({
      status: "ok",
      trigger: "api",
      workflow_version: 1,
      state: { a: { path: "/one" }, b: { path: "/two" } },
    });
    expect(run.metrics).toMatchObject({ supersteps: 2, nodes_finished: 2, nodes_reused: 0 });
    const events = (
      await studio.app.inject({ method: "GET", url: `/api/runs/${runId}/events`, headers: owner.auth })
    ).json().data;
    expect(events.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(events.at(-1)).toMatchObject({ type: "run_finished", data: { status: "ok" } });
    const after = (
      await studio.app.inject({ method: "GET", url: `/api/runs/${runId}/events?after=4`, headers: owner.auth })
    ).json().data;
    expect(after.map((e: { seq: number }) => e.seq)).toEqual([5, 6]);
    // The ledger is kept with the run (a fork reuses it): one result per side effect.
    const ledger = await studio.container.database.db
      .selectFrom("node_results")
      .select("key")
      .where("run_id", "=", runId)
      .orderBy("key")
      .execute();
    expect(ledger.map((row) => row.key)).toEqual([`${runId}:t1:0`, `${runId}:t2:0`]);
  });

  it("streams live events over SSE, resuming after a seq", async () => {
    const workflowId = await save(gatedWorkflow(gate.url, "streamed"));
    const arrived = gate.arrived(gate.arrivals.length + 1);
    const runId = (await hook(workflowId)).json().data.run_id;
    await arrived;
    // Subscribes while the run is in flight (its call is held); the response ends with run_finished.
    const streaming = studio.app.inject({ method: "GET", url: `/api/runs/${runId}/stream`, headers: owner.auth });
    gate.release("/streamed");
    const live = await streaming;
    expect(live.headers["content-type"]).toContain("text/event-stream");
    const ids = [...live.body.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual([1, 2, 3, 4]);
    expect(live.body).toContain("event: run_finished");
    const resumed = await studio.app.inject({
      method: "GET",
      url: `/api/runs/${runId}/stream`,
      headers: { ...owner.auth, "last-event-id": "2" },
    });
    expect([...resumed.body.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).toEqual([3, 4]);
  });

  it("ends a stream that fails after it began with a stream_failed event naming the error", async () => {
    const workflowId = await save(chain());
    const runId = (await hook(workflowId)).json().data.run_id;
    await settle();
    // A stored event the catch-up cannot read: the stream's headers are out by then.
    await studio.container.database.db
      .updateTable("run_events")
      .set({ data: "not json" })
      .where("run_id", "=", runId)
      .where("seq", "=", 2)
      .execute();
    const failed = await studio.app.inject({ method: "GET", url: `/api/runs/${runId}/stream`, headers: owner.auth });
    expect(failed.statusCode).toBe(200);
    const blocks = failed.body.split("\n\n").filter((block) => block !== "");
    expect(blocks.at(-1)).toMatch(/^event: stream_failed\ndata: /);
    expect(JSON.parse((blocks.at(-1) as string).split("data: ")[1] as string)).toMatchObject({
      error: { code: "INTERNAL" },
    });
    // The page of events it was read with is not sent either.
    expect([...failed.body.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).toEqual([]);
  });

  it("returns the same run for a retried trigger with the same Idempotency-Key", async () => {
    const workflowId = await save(chain());
    const first = await hook(workflowId, {}, { "idempotency-key": "order-42" });
    const second = await hook(workflowId, {}, { "idempotency-key": "order-42" });
    expect(second.json().data.run_id).toBe(first.json().data.run_id);
    await settle();
    const list = (
      await studio.app.inject({ method: "GET", url: `/api/runs?workflow_id=${workflowId}`, headers: owner.auth })
    ).json();
    expect(list.data).toHaveLength(1);
  });

  it("turns 200 concurrent triggers into 200 runs, none lost or duplicated", async () => {
    const workflowId = await save({
      name: "quick",
      state: [{ name: "n", type: "number" }],
      nodes: [],
      edges: [edge("start", "end")],
    });
    const responses = await Promise.all(Array.from({ length: 200 }, (_, n) => hook(workflowId, { input: { n } })));
    expect(responses.every((r) => r.statusCode === 202)).toBe(true);
    const ids = new Set(responses.map((r) => r.json().data.run_id));
    expect(ids.size).toBe(200);
    await settle();
    const rows = await studio.container.database.db
      .selectFrom("runs")
      .select(["status", "state"])
      .where("workflow_id", "=", workflowId)
      .execute();
    expect(rows).toHaveLength(200);
    expect(rows.every((r) => r.status === "ok")).toBe(true);
    expect(new Set(rows.map((r) => JSON.parse(r.state as string).n)).size).toBe(200);
  });

  describe("human wait", () => {
    const approval = approvalWorkflow({ field: "approved", timeoutSeconds: 3600 });

    it("waits, checks the answer against the form, and resumes once", async () => {
      const workflowId = await save(approval);
      const runId = (await hook(workflowId)).json().data.run_id;
      await settle();
      expect(await getRun(runId)).toMatchObject({
        status: "waiting",
        waiting: { node_id: "ask", message: "OK?" },
      });

      const resume = (input: object) =>
        studio.app.inject({
          method: "POST",
          url: `/api/runs/${runId}/resume`,
          headers: owner.auth,
          payload: { input },
        });
      const bad = await resume({ approved: "sure" });
      expect(bad.statusCode).toBe(422);
      expect(bad.json().error.code).toBe("HUMAN_INPUT_INVALID");
      expect((await getRun(runId)).status).toBe("waiting");

      const [first, second] = await Promise.all([resume({ approved: true }), resume({ approved: false })]);
      expect([first.statusCode, second.statusCode].sort()).toEqual([200, 409]);
      await settle();
      const run = await getRun(runId);
      expect(run.status).toBe("ok");
      expect([{ approved: true }, { approved: false }]).toContainEqual(run.state.answer);
      const again = await resume({ approved: true });
      expect(again.json().error.code).toBe("RUN_NOT_WAITING");
    });

    it("turns an overdue wait into expired", async () => {
      const runId = (await hook(await save(approvalWorkflow({ field: "approved", timeoutSeconds: 60 })))).json().data
        .run_id;
      await settle();
      // The sweeper looks a minute and a second later, by its clock.
      expect(await studio.container.runs.sweep(new Date(Date.now() + 61_000))).toBeGreaterThanOrEqual(1);
      const run = await getRun(runId);
      expect(run.status).toBe("expired");
      expect(run.error.code).toBe("HUMAN_WAIT_EXPIRED");
      const late = await studio.app.inject({
        method: "POST",
        url: `/api/runs/${runId}/resume`,
        headers: owner.auth,
        payload: { input: { approved: true } },
      });
      expect(late.json().error.code).toBe("RUN_NOT_WAITING");
    });
  });

  it("pauses after each superstep in step mode and continues on request", async () => {
    const workflowId = await save(chain());
    const runId = (await hook(workflowId, { mode: "step" })).json().data.run_id;
    await settle();
    expect((await getRun(runId)).status).toBe("paused");
    const cont = () => studio.app.inject({ method: "POST", url: `/api/runs/${runId}/continue`, headers: owner.auth });
    expect((await cont()).statusCode).toBe(200);
    await settle();
    const run = await getRun(runId);
    expect(run.status).toBe("ok");
    expect(run.state.b).toEqual({ path: "/two" });
    const late = await cont();
    expect(late.statusCode).toBe(409);
    expect(late.json().error.code).toBe("RUN_NOT_PAUSED");
  });

  it("cancels a running run", async () => {
    const workflowId = await save(gatedWorkflow(gate.url, "cancelled"));
    const arrived = gate.arrived(gate.arrivals.length + 1);
    const runId = (await hook(workflowId)).json().data.run_id;
    // Its call is held: the run is running when it is cancelled.
    await arrived;
    expect((await getRun(runId)).status).toBe("running");
    // A live follower (here the event stream; the editor's socket alike) sees the run end as it
    // happens: its stream ends with the cancellation.
    const streaming = studio.app.inject({ method: "GET", url: `/api/runs/${runId}/stream`, headers: owner.auth });
    await expect.poll(() => studio.container.bus.has(runId)).toBe(true);
    const cancel = () => studio.app.inject({ method: "POST", url: `/api/runs/${runId}/cancel`, headers: owner.auth });
    expect((await cancel()).statusCode).toBe(200);
    const live = (await streaming).body;
    expect([...live.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).toEqual([1, 2, 3]);
    expect(live).toContain("event: run_finished");
    expect(live).toContain('"status":"cancelled"');
    await settle();
    const run = await getRun(runId);
    expect(run.status).toBe("cancelled");
    expect(run.state).toBeNull();
    expect((await cancel()).json().error.code).toBe("RUN_NOT_ACTIVE");
  });

  it("times out a run whose turn has been running far past STUDIO_RUN_TIMEOUT", async () => {
    const workflowId = await save(chain());
    const runId = (await hook(workflowId)).json().data.run_id;
    await settle();
    // As if a worker had died mid-turn two days ago and nothing picked the run up.
    const longAgo = new Date(Date.now() - 2 * 24 * 3600_000).toISOString();
    await studio.container.database.db
      .updateTable("runs")
      .set({ status: "running", started_at: longAgo, turn_started_at: longAgo, lease_expires_at: longAgo })
      .where("id", "=", runId)
      .execute();
    expect(await studio.container.runs.sweep()).toBeGreaterThanOrEqual(1);
    const run = await getRun(runId);
    expect(run.status).toBe("timeout");
    expect(run.error.code).toBe("RUN_TIMEOUT");
  });

  it("refuses an oversize hook body with 413, creating no run", async () => {
    const workflowId = await save(chain());
    const response = await hook(workflowId, { input: { a: "x".repeat(3 * 1024 * 1024) } });
    expect(response.statusCode).toBe(413);
    expect(response.json().error.code).toBe("PAYLOAD_TOO_LARGE");
    const list = (
      await studio.app.inject({ method: "GET", url: `/api/runs?workflow_id=${workflowId}`, headers: owner.auth })
    ).json();
    expect(list.data).toEqual([]);
  });

  describe("bad input", () => {
    it("refuses a session token on the hook route", async () => {
      const workflowId = await save(chain());
      const response = await studio.app.inject({
        method: "POST",
        url: `/api/hooks/workflows/${workflowId}/runs`,
        headers: owner.auth,
        payload: {},
      });
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe("AUTH_API_KEY_REQUIRED");
    });

    it("answers an unknown API key with AUTH_INVALID_TOKEN, whether the workflow exists or not", async () => {
      // The workflow is read while the key is checked: what a refused caller hears must not say which.
      const workflowId = await save(chain());
      const real = key.authorization.slice("Bearer ".length);
      const unknown = { authorization: `Bearer ${real.slice(0, -1)}${real.endsWith("a") ? "b" : "a"}` };
      for (const id of [workflowId, "no-such-workflow"]) {
        const response = await hook(id, {}, unknown);
        expect(response.statusCode, id).toBe(401);
        expect(response.json().error.code, id).toBe("AUTH_INVALID_TOKEN");
      }
      const list = (
        await studio.app.inject({ method: "GET", url: `/api/runs?workflow_id=${workflowId}`, headers: owner.auth })
      ).json();
      expect(list.data).toEqual([]);
    });

    it("refuses input that does not fit the workflow, creating no run", async () => {
      const workflowId = await save(chain());
      const response = await hook(workflowId, { input: { nope: 1 } });
      expect(response.statusCode).toBe(422);
      expect(response.json().error.code).toBe("RUN_INPUT_INVALID");
      const list = (
        await studio.app.inject({ method: "GET", url: `/api/runs?workflow_id=${workflowId}`, headers: owner.auth })
      ).json();
      expect(list.data).toEqual([]);
    });

    it("answers 404 for another user's workflow and runs", async () => {
      const workflowId = await save(chain(), other);
      expect((await hook(workflowId)).json().error.code).toBe("WORKFLOW_NOT_FOUND");
      const mine = (await hook(await save(chain()))).json().data.run_id;
      await settle();
      for (const [method, url] of [
        ["GET", `/api/runs/${mine}`],
        ["GET", `/api/runs/${mine}/events`],
        ["POST", `/api/runs/${mine}/cancel`],
        ["POST", `/api/runs/${mine}/continue`],
      ] as const) {
        const response = await studio.app.inject({ method, url, headers: other.auth });
        expect(response.statusCode, url).toBe(404);
        expect(response.json().error.code).toBe("RUN_NOT_FOUND");
      }
    });
  });
});
