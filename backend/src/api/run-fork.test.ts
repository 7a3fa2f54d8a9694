// Time travel and fork over the API: a run's supersteps, a fork from the middle with an edited
// state, the parent's finished side effects reused unless chosen to run again (calls counted at a
// loopback receiver), the parent left exactly as it was, and every bad input refused with its code.
import { createServer, type Server } from "node:http";
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
import { storedRowsOf } from "../../test/run-rows.js";
import { registerMember, type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";

/** What the receiver computes, so a test can run the rest of the workflow by hand. */
const double = (value: unknown) => ({ result: Number(value) * 2 });
const plusOne = (value: unknown) => ({ result: Number(value) + 1 });
const finalOf = (value: unknown) => ({ result: `final ${String(value)}` });

describe("runs: time travel and fork", () => {
  let studio: TestStudio;
  let owner: Session;
  let other: Session;
  let receiver: Receiver;
  let gate: Gate;
  let workflowId: string;
  let parentId: string;
  let parentRows: string;
  let flaky: Server | undefined;
  let flakyCalls = 0;

  /**
   * A loopback server that fails its first call, once the node `after` of the same run has
   * finished (the run's events say so): the side effect that ran beside it is in the ledger when
   * the run fails. Later calls succeed.
   */
  async function startFlaky(after: string): Promise<string> {
    flaky = createServer((req, res) => {
      req.resume();
      flakyCalls++;
      if (flakyCalls > 1) {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ up: true }));
        return;
      }
      const runId = String(req.headers["idempotency-key"]).split(":")[0] as string;
      const fail = () => res.writeHead(500, { "content-type": "application/json" }).end('{"down":true}');
      const unsubscribe = studio.container.bus.subscribe(runId, (event) => {
        if (event.type === "node_finished" && event.node_id === after) {
          unsubscribe();
          fail();
        }
      });
      void studio.container.database.db
        .selectFrom("run_events")
        .select("seq")
        .where("run_id", "=", runId)
        .where("type", "=", "node_finished")
        .where("node_id", "=", after)
        .execute()
        .then((rows) => {
          if (rows.length > 0 && !res.headersSent) {
            unsubscribe();
            fail();
          }
        });
    });
    const server = flaky;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  }

  const calls = (path: string) => receiver.requests.filter((request) => request.path === path).length;
  const api = (method: "GET" | "POST", url: string, payload?: object, session = owner) =>
    studio.app.inject({ method, url, headers: session.auth, ...(payload ? { payload } : {}) });
  const getRun = async (id: string) => (await api("GET", `/api/runs/${id}`)).json().data;
  const settle = () => studio.container.runs.idle();

  const rowsOf = (runId: string) => storedRowsOf(studio.container.database.db, runId);

  beforeAll(async () => {
    let flaky = 0;
    receiver = await startReceiver((request) => {
      const value = (request.body as { value?: unknown } | null)?.value;
      // Fails the first time only: the run that calls it first fails, a fork of it succeeds.
      if (request.path === "/flaky")
        return ++flaky === 1 ? { status: 500, json: { down: true } } : { json: { up: true } };
      if (request.path === "/ok") return { json: { fine: true } };
      if (request.path === "/double") return { json: double(value) };
      if (request.path === "/plus") return { json: plusOne(value) };
      return { json: finalOf(value) };
    });
    gate = await startGate();
    studio = await startTestStudio({ STUDIO_ALLOW_SIGNUP: "1", STUDIO_EGRESS_ALLOW: "127.0.0.1" });
    await studio.container.runs.start(60_000);
    owner = await setupOwner(studio);
    other = await registerMember(studio, "other@example.com");
    const saved = await api("POST", "/api/workflows", {
      name: "three calls",
      state: [
        { name: "x", type: "number" },
        { name: "doubled", type: "any" },
        { name: "plus", type: "any" },
        { name: "final", type: "any" },
      ],
      nodes: [
        httpTool("t1", `${receiver.url}/double`, "doubled", { body: { value: "{{state.x}}" } }),
        httpTool("t2", `${receiver.url}/plus`, "plus", { body: { value: "{{state.doubled.result}}" } }),
        httpTool("t3", `${receiver.url}/final`, "final", { body: { value: "{{state.plus.result}}" } }),
      ],
      edges: [edge("start", "t1"), edge("t1", "t2"), edge("t2", "t3")],
    });
    workflowId = saved.json().data.id;
    const key = (await api("POST", "/api/api-keys", { name: "hooks" })).json().data.key as string;
    const hook = await studio.app.inject({
      method: "POST",
      url: `/api/hooks/workflows/${workflowId}/runs`,
      headers: { authorization: `Bearer ${key}` },
      payload: { input: { x: 5 } },
    });
    parentId = hook.json().data.run_id;
    await settle();
    expect((await getRun(parentId)).status).toBe("ok");
    parentRows = await rowsOf(parentId);
  });
  afterAll(async () => {
    flaky?.closeAllConnections();
    await new Promise((resolve) => flaky?.close(resolve));
    await studio.close();
    await receiver.close();
    await gate.close();
  });

  it("lists the supersteps of a run with their checkpoint, nodes and state after each", async () => {
    const response = await api("GET", `/api/runs/${parentId}/steps`);
    expect(response.statusCode).toBe(200);
    const steps = response.json().data;
    expect(steps.map((s: { superstep: number }) => s.superstep)).toEqual([0, 1, 2, 3]);
    expect(steps.map((s: { nodes: { node_id: string }[] }) => s.nodes.map((n) => n.node_id))).toEqual([
      [],
      ["t1"],
      ["t2"],
      ["t3"],
    ]);
    // State fields only: not the engine's channels nor LangGraph's own (branch:to:…).
    expect(steps[0].state).toEqual({ x: 5 });
    expect(steps[1].state).toEqual({ x: 5, doubled: { result: 10 } });
    expect(steps[3].state).toEqual({
      x: 5,
      doubled: { result: 10 },
      plus: { result: 11 },
      final: { result: "final 11" },
    });
    expect(new Set(steps.map((s: { checkpoint_id: string }) => s.checkpoint_id)).size).toBe(4);

    const paged = (await api("GET", `/api/runs/${parentId}/steps?limit=2&offset=1`)).json();
    expect(paged.data.map((s: { superstep: number }) => s.superstep)).toEqual([1, 2]);
    expect(paged.pagination).toEqual({ limit: 2, offset: 1, next_offset: 3 });
  });

  it("previews a fork: the next nodes, and each side effect reused from the parent or run again", async () => {
    const response = await api("POST", `/api/runs/${parentId}/fork/preview`, {
      superstep: 1,
      state: { doubled: { result: 100 } },
      rerun: ["t3"],
    });
    expect(response.statusCode).toBe(200);
    const preview = response.json().data;
    expect(preview).toMatchObject({ run_id: parentId, superstep: 1, next: ["t2"], state_changes: ["doubled"] });
    expect(preview.side_effects).toEqual([
      // t1 ran before the fork point: nothing of it runs in the fork.
      { node_id: "t1", type: "tool", action: "run", parent_results: 0, reads_edited: [], settings_changed: false },
      // t2 reads the edited field: its reused result is flagged as possibly stale.
      {
        node_id: "t2",
        type: "tool",
        action: "reuse",
        parent_results: 1,
        reads_edited: ["doubled"],
        settings_changed: false,
      },
      {
        node_id: "t3",
        type: "tool",
        action: "run_again",
        parent_results: 1,
        reads_edited: [],
        settings_changed: false,
      },
    ]);
  });

  it("forks from a middle superstep with an edited state and ends as running the rest by hand would", async () => {
    const steps = (await api("GET", `/api/runs/${parentId}/steps`)).json().data;
    const before = { double: calls("/double"), plus: calls("/plus"), final: calls("/final") };
    const response = await api("POST", `/api/runs/${parentId}/fork`, {
      superstep: 1,
      state: { doubled: { result: 100 } },
      rerun: ["t2", "t3"],
    });
    expect(response.statusCode).toBe(202);
    const fork = response.json().data;
    expect(fork).toMatchObject({
      status: "queued",
      trigger: "fork",
      workflow_id: workflowId,
      workflow_version: 1,
      parent_run_id: parentId,
      parent_checkpoint_id: steps[1].checkpoint_id,
    });
    await settle();
    const ended = await getRun(fork.id);
    // By hand: t2 and t3 on the edited state.
    const plus = plusOne(100);
    const expected = { x: 5, doubled: { result: 100 }, plus, final: finalOf(plus.result) };
    expect(ended).toMatchObject({ status: "ok", state: expected, parent_run_id: parentId });
    expect(ended.metrics).toMatchObject({ nodes_finished: 2, nodes_reused: 0 });
    expect({ double: calls("/double"), plus: calls("/plus"), final: calls("/final") }).toEqual({
      double: before.double,
      plus: before.plus + 1,
      final: before.final + 1,
    });
    // The fork's own history goes on from the parent's superstep.
    const forkSteps = (await api("GET", `/api/runs/${fork.id}/steps`)).json().data;
    expect(forkSteps.map((s: { superstep: number }) => s.superstep)).toEqual([1, 2, 3]);
    expect(forkSteps[0].state).toMatchObject({ doubled: { result: 100 } });
    const listed = (await api("GET", `/api/runs?workflow_id=${workflowId}`)).json().data;
    expect(listed.find((run: { id: string }) => run.id === fork.id)).toMatchObject({
      parent_run_id: parentId,
      parent_checkpoint_id: steps[1].checkpoint_id,
    });
  });

  it("reuses the side effects the parent finished, without calling them again, unless chosen to run again", async () => {
    const before = { plus: calls("/plus"), final: calls("/final") };
    const reused = (await api("POST", `/api/runs/${parentId}/fork`, { superstep: 1 })).json().data;
    await settle();
    const ended = await getRun(reused.id);
    expect(ended.status).toBe("ok");
    expect(ended.state).toEqual({ x: 5, doubled: { result: 10 }, plus: { result: 11 }, final: { result: "final 11" } });
    expect(ended.metrics).toMatchObject({ nodes_finished: 2, nodes_reused: 2 });
    expect({ plus: calls("/plus"), final: calls("/final") }).toEqual(before);
    const events = (await api("GET", `/api/runs/${reused.id}/events`)).json().data;
    const finished = events.filter((e: { type: string }) => e.type === "node_finished");
    expect(finished.map((e: { node_id: string; data: { reused: boolean } }) => [e.node_id, e.data.reused])).toEqual([
      ["t2", true],
      ["t3", true],
    ]);

    // Only t3 again: t2's result comes from the parent (the edit does not reach it), t3 is called once.
    const partly = (
      await api("POST", `/api/runs/${parentId}/fork`, {
        checkpoint_id: (await api("GET", `/api/runs/${parentId}/steps`)).json().data[1].checkpoint_id,
        state: { doubled: { result: 100 } },
        rerun: ["t3"],
      })
    ).json().data;
    await settle();
    const partlyEnded = await getRun(partly.id);
    expect(partlyEnded.state).toEqual({
      x: 5,
      doubled: { result: 100 },
      plus: { result: 11 },
      final: { result: "final 11" },
    });
    expect({ plus: calls("/plus"), final: calls("/final") }).toEqual({ plus: before.plus, final: before.final + 1 });

    // A fork of the fork reuses what the fork took from its parent.
    const grandchild = (await api("POST", `/api/runs/${reused.id}/fork`, { superstep: 1 })).json().data;
    await settle();
    expect((await getRun(grandchild.id)).metrics).toMatchObject({ nodes_reused: 2 });
    expect({ plus: calls("/plus"), final: calls("/final") }).toEqual({ plus: before.plus, final: before.final + 1 });
  });

  it("recovers a failed run by forking from the superstep before the failure, without calling finished side effects again", async () => {
    const flakyUrl = await startFlaky("ok");
    const saved = await api("POST", "/api/workflows", {
      name: "one fails",
      state: [
        { name: "done", type: "any" },
        { name: "retried", type: "any" },
      ],
      nodes: [httpTool("ok", `${receiver.url}/ok`, "done"), httpTool("flaky", `${flakyUrl}/flaky`, "retried")],
      edges: [edge("start", "ok"), edge("start", "flaky")],
    });
    const key = (await api("POST", "/api/api-keys", { name: "fails" })).json().data.key as string;
    const hook = await studio.app.inject({
      method: "POST",
      url: `/api/hooks/workflows/${saved.json().data.id}/runs`,
      headers: { authorization: `Bearer ${key}` },
      payload: {},
    });
    expect(hook.json()).toMatchObject({ data: { status: "queued" } });
    const failedId = hook.json().data.run_id;
    await settle();
    expect(await getRun(failedId)).toMatchObject({ status: "error", error: { code: "HTTP_TOOL_STATUS" } });
    expect({ ok: calls("/ok"), flaky: flakyCalls }).toEqual({ ok: 1, flaky: 1 });
    const failedRows = await rowsOf(failedId);

    // The failed superstep wrote no checkpoint: it is listed last, with what ran in it.
    const steps = (await api("GET", `/api/runs/${failedId}/steps`)).json().data;
    expect(
      steps.map((s: { superstep: number; checkpoint_id: string | null }) => [s.superstep, s.checkpoint_id === null]),
    ).toEqual([
      [0, false],
      [1, true],
    ]);
    expect(steps[1].nodes.map((n: { node_id: string; status: string }) => [n.node_id, n.status]).sort()).toEqual([
      ["flaky", "error"],
      ["ok", "ok"],
    ]);
    expect(steps[1].state).toBeNull();
    expect((await api("POST", `/api/runs/${failedId}/fork/preview`, { superstep: 1 })).json().error.code).toBe(
      "RUN_CHECKPOINT_NOT_FOUND",
    );

    const preview = (await api("POST", `/api/runs/${failedId}/fork/preview`, { superstep: 0 })).json().data;
    expect([...preview.next].sort()).toEqual(["flaky", "ok"]);
    expect(preview.side_effects).toEqual([
      { node_id: "ok", type: "tool", action: "reuse", parent_results: 1, reads_edited: [], settings_changed: false },
      { node_id: "flaky", type: "tool", action: "run", parent_results: 0, reads_edited: [], settings_changed: false },
    ]);
    const fork = (await api("POST", `/api/runs/${failedId}/fork`, { superstep: 0 })).json().data;
    await settle();
    expect(await getRun(fork.id)).toMatchObject({
      status: "ok",
      state: { done: { fine: true }, retried: { up: true } },
    });
    expect({ ok: calls("/ok"), flaky: flakyCalls }).toEqual({ ok: 1, flaky: 2 });
    expect(await rowsOf(failedId)).toBe(failedRows);
  });

  it("forks a run that waits for a person; the fork waits too and is answered on its own", async () => {
    const saved = await api("POST", "/api/workflows", approvalWorkflow());
    const key = (await api("POST", "/api/api-keys", { name: "approval" })).json().data.key as string;
    const hook = await studio.app.inject({
      method: "POST",
      url: `/api/hooks/workflows/${saved.json().data.id}/runs`,
      headers: { authorization: `Bearer ${key}` },
      payload: {},
    });
    const waitingId = hook.json().data.run_id;
    await settle();
    expect((await getRun(waitingId)).status).toBe("waiting");
    const waitingRows = await rowsOf(waitingId);
    const preview = (await api("POST", `/api/runs/${waitingId}/fork/preview`, { superstep: 0 })).json().data;
    expect(preview).toMatchObject({ next: ["ask"], side_effects: [] });
    const fork = (await api("POST", `/api/runs/${waitingId}/fork`, { superstep: 0 })).json().data;
    await settle();
    expect(await getRun(fork.id)).toMatchObject({ status: "waiting", waiting: { node_id: "ask" } });
    const answered = await api("POST", `/api/runs/${fork.id}/resume`, { input: { ok: true } });
    expect(answered.statusCode).toBe(200);
    await settle();
    expect(await getRun(fork.id)).toMatchObject({ status: "ok", state: { answer: { ok: true } } });
    // The parent still waits, exactly as it was.
    expect(await rowsOf(waitingId)).toBe(waitingRows);
  });

  it("forks in step mode: the fork pauses after its first superstep", async () => {
    const fork = (await api("POST", `/api/runs/${parentId}/fork`, { superstep: 1, mode: "step", rerun: ["t2"] })).json()
      .data;
    await settle();
    expect(await getRun(fork.id)).toMatchObject({ status: "paused", mode: "step" });
    const steps = (await api("GET", `/api/runs/${fork.id}/steps`)).json().data;
    expect(steps.map((s: { superstep: number }) => s.superstep)).toEqual([1, 2]);
    expect(steps[1].nodes.map((n: { node_id: string }) => n.node_id)).toEqual(["t2"]);
    await api("POST", `/api/runs/${fork.id}/continue`);
    await settle();
    await api("POST", `/api/runs/${fork.id}/continue`);
    await settle();
    expect(await getRun(fork.id)).toMatchObject({ status: "ok", state: { final: { result: "final 11" } } });
  });

  it("refuses bad input with its code", async () => {
    const refused = async (method: "GET" | "POST", url: string, payload: object | undefined, session = owner) => {
      const response = await api(method, url, payload, session);
      return { status: response.statusCode, code: response.json().error?.code };
    };
    const fork = (payload: object, session = owner) => refused("POST", `/api/runs/${parentId}/fork`, payload, session);
    const preview = (payload: object) => refused("POST", `/api/runs/${parentId}/fork/preview`, payload);
    // Another user's run is no run of theirs.
    expect(await fork({ superstep: 1 }, other)).toEqual({ status: 404, code: "RUN_NOT_FOUND" });
    expect(await refused("POST", `/api/runs/${parentId}/fork/preview`, { superstep: 1 }, other)).toEqual({
      status: 404,
      code: "RUN_NOT_FOUND",
    });
    expect(await refused("GET", `/api/runs/${parentId}/steps`, undefined, other)).toEqual({
      status: 404,
      code: "RUN_NOT_FOUND",
    });
    // A superstep or checkpoint the run does not have.
    expect(await fork({ superstep: 42 })).toEqual({ status: 404, code: "RUN_CHECKPOINT_NOT_FOUND" });
    expect(await preview({ checkpoint_id: "no-such-checkpoint" })).toEqual({
      status: 404,
      code: "RUN_CHECKPOINT_NOT_FOUND",
    });
    // An edited state that does not fit the state fields.
    expect(await fork({ superstep: 1, state: { x: "five" } })).toEqual({ status: 422, code: "FORK_STATE_INVALID" });
    expect(await preview({ superstep: 1, state: { nope: 1 } })).toEqual({ status: 422, code: "FORK_STATE_INVALID" });
    // A node to run again that is not in the workflow (or has no side effect).
    expect(await fork({ superstep: 1, rerun: ["ghost"] })).toEqual({ status: 422, code: "FORK_RERUN_INVALID" });
    expect(await preview({ superstep: 1, rerun: ["start"] })).toEqual({ status: 422, code: "FORK_RERUN_INVALID" });
    // Neither or both of superstep and checkpoint_id.
    expect(await fork({})).toEqual({ status: 422, code: "VALIDATION_FAILED" });
    expect(await fork({ superstep: 1, checkpoint_id: "x" })).toEqual({ status: 422, code: "VALIDATION_FAILED" });

    // A run still running is not forked.
    const saved = await api("POST", "/api/workflows", gatedWorkflow(gate.url, "held"));
    const key = (await api("POST", "/api/api-keys", { name: "held" })).json().data.key as string;
    const arrived = gate.arrived(gate.arrivals.length + 1);
    const held = await studio.app.inject({
      method: "POST",
      url: `/api/hooks/workflows/${saved.json().data.id}/runs`,
      headers: { authorization: `Bearer ${key}` },
      payload: {},
    });
    const heldId = held.json().data.run_id;
    await arrived;
    expect(await refused("POST", `/api/runs/${heldId}/fork`, { superstep: 0 })).toEqual({
      status: 409,
      code: "RUN_STILL_RUNNING",
    });
    gate.release("/held");
    await settle();
    expect((await getRun(heldId)).status).toBe("ok");
    // Once it has ended, it can be.
    expect((await api("POST", `/api/runs/${heldId}/fork/preview`, { superstep: 0 })).json().data.next).toEqual([
      "wait",
    ]);
  });

  it("forks a run that failed at a Code node with the fixed workflow, without calling the Tool before it again", async () => {
    const codeNode = (code: string) => ({
      id: "shape",
      type: "code",
      position: { x: 0, y: 0 },
      data: { language: "javascript", code, outputs: ["plus"] },
    });
    const broken = {
      name: "fix and fork",
      state: [
        { name: "x", type: "number" },
        { name: "doubled", type: "any" },
        { name: "plus", type: "any" },
      ],
      nodes: [
        httpTool("call", `${receiver.url}/double`, "doubled", { body: { value: "{{state.x}}" } }),
        codeNode("function main(state) { throw new Error('typo in the code'); }"),
      ],
      edges: [edge("start", "call"), edge("call", "shape")],
    };
    const saved = (await api("POST", "/api/workflows", broken)).json().data;
    const key = (await api("POST", "/api/api-keys", { name: "fix and fork" })).json().data.key as string;
    const hook = await studio.app.inject({
      method: "POST",
      url: `/api/hooks/workflows/${saved.id}/runs`,
      headers: { authorization: `Bearer ${key}` },
      payload: { input: { x: 21 } },
    });
    const started = { id: hook.json().data.run_id as string };
    await settle();
    expect(await getRun(started.id)).toMatchObject({ status: "error" });
    const before = calls("/double");
    const failedRows = await rowsOf(started.id);
    const steps = (await api("GET", `/api/runs/${started.id}/steps`)).json().data;
    const failed = steps.at(-1);
    expect(failed).toMatchObject({ checkpoint_id: null, nodes: [{ node_id: "shape", status: "error" }] });

    const fixed = {
      ...broken,
      nodes: [broken.nodes[0], codeNode("function main(state) { return { plus: state.doubled.result + 1 }; }")],
    };
    const forkPoint = { superstep: failed.superstep - 1, document: fixed };
    const preview = (await api("POST", `/api/runs/${started.id}/fork/preview`, forkPoint)).json().data;
    expect(preview.next).toEqual(["shape"]);
    // The Tool finished before the checkpoint: no result of it lies after the fork point.
    expect(preview.side_effects).toEqual([
      { node_id: "call", type: "tool", action: "run", parent_results: 0, reads_edited: [], settings_changed: false },
    ]);
    // The same fork with the Tool's settings changed too flags it.
    const retargeted = {
      ...fixed,
      nodes: [
        httpTool("call", `${receiver.url}/double`, "doubled", { body: { value: "{{state.x}}", v: 2 } }),
        fixed.nodes[1],
      ],
    };
    const changed = (
      await api("POST", `/api/runs/${started.id}/fork/preview`, { ...forkPoint, document: retargeted })
    ).json().data;
    expect(changed.side_effects).toMatchObject([{ node_id: "call", settings_changed: true }]);
    const fork = await api("POST", `/api/runs/${started.id}/fork`, forkPoint);
    expect(fork.statusCode).toBe(202);
    await settle();
    const ended = await getRun(fork.json().data.id);
    expect(ended).toMatchObject({ status: "ok", parent_run_id: started.id, workflow_version: null });
    expect(ended.state).toEqual({ x: 21, doubled: { result: 42 }, plus: 43 });
    // The Tool before the fixed node was not called again; the failed run is as it was.
    expect(calls("/double")).toBe(before);
    expect(await rowsOf(started.id)).toBe(failedRows);

    // A workflow without the node that runs next, or one that is not a workflow, is refused.
    const without = { ...broken, nodes: [broken.nodes[0]], edges: [edge("start", "call")] };
    const incompatible = await api("POST", `/api/runs/${started.id}/fork`, { ...forkPoint, document: without });
    expect(incompatible.statusCode).toBe(422);
    expect(incompatible.json().error).toMatchObject({
      code: "FORK_DOCUMENT_INCOMPATIBLE",
      details: { missing: ["shape"] },
    });
    const invalid = await api("POST", `/api/runs/${started.id}/fork/preview`, { ...forkPoint, document: { nodes: 3 } });
    expect(invalid.statusCode).toBe(422);
    expect(await rowsOf(started.id)).toBe(failedRows);
  });

  it("documents the routes in the OpenAPI reference", async () => {
    const { paths } = (await studio.app.inject({ method: "GET", url: "/api/docs/json" })).json();
    expect(Object.keys(paths["/api/runs/{id}/steps"])).toEqual(["get"]);
    expect(Object.keys(paths["/api/runs/{id}/fork/preview"])).toEqual(["post"]);
    expect(paths["/api/runs/{id}/fork"].post.requestBody.content["application/json"].schema.properties).toHaveProperty(
      "rerun",
    );
  });

  it("leaves every row of the parent run exactly as it was", async () => {
    expect(await rowsOf(parentId)).toBe(parentRows);
  });
});

describe("runs: a fork executed on the run thread", () => {
  let studio: TestStudio;
  let owner: Session;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver((request) => ({ json: { path: request.path } }));
    studio = await startTestStudio({ STUDIO_EGRESS_ALLOW: "127.0.0.1", STUDIO_RUN_THREADS: "1" });
    await studio.container.runs.start(60_000);
    owner = await setupOwner(studio);
  });
  afterAll(async () => {
    await studio.close();
    await receiver.close();
  });

  it("reuses the parent's finished calls there too, and runs again the one chosen", async () => {
    const api = (method: "GET" | "POST", url: string, payload?: object) =>
      studio.app.inject({ method, url, headers: owner.auth, ...(payload ? { payload } : {}) });
    const saved = await api("POST", "/api/workflows", {
      name: "two calls",
      state: [
        { name: "a", type: "any" },
        { name: "b", type: "any" },
      ],
      nodes: [httpTool("t1", `${receiver.url}/one`, "a"), httpTool("t2", `${receiver.url}/two`, "b")],
      edges: [edge("start", "t1"), edge("t1", "t2")],
    });
    const key = (await api("POST", "/api/api-keys", { name: "thread" })).json().data.key as string;
    const hook = await studio.app.inject({
      method: "POST",
      url: `/api/hooks/workflows/${saved.json().data.id}/runs`,
      headers: { authorization: `Bearer ${key}` },
      payload: {},
    });
    const parentId = hook.json().data.run_id;
    await studio.container.runs.idle();
    expect((await api("GET", `/api/runs/${parentId}`)).json().data.status).toBe("ok");
    const calls = () => receiver.requests.map((request) => request.path);
    expect(calls()).toEqual(["/one", "/two"]);

    const reused = (await api("POST", `/api/runs/${parentId}/fork`, { superstep: 0 })).json().data;
    await studio.container.runs.idle();
    expect((await api("GET", `/api/runs/${reused.id}`)).json().data).toMatchObject({
      status: "ok",
      metrics: { nodes_reused: 2 },
    });
    expect(calls()).toEqual(["/one", "/two"]);

    const again = (await api("POST", `/api/runs/${parentId}/fork`, { superstep: 0, rerun: ["t2"] })).json().data;
    await studio.container.runs.idle();
    expect((await api("GET", `/api/runs/${again.id}`)).json().data).toMatchObject({
      status: "ok",
      metrics: { nodes_reused: 1 },
    });
    expect(calls()).toEqual(["/one", "/two", "/two"]);
  });
});
