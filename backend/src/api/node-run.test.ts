// Run one node over the API: a node of a saved workflow or of an unsaved document, on the state of
// a past run's superstep and/or edited JSON, executed for real (calls counted at a loopback
// receiver) without anything upstream, answering with its output, the state it would write through
// the reducers and its duration; the past run left exactly as it was; every bad input refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalWorkflow, at, edge, httpTool, type Receiver, startReceiver } from "../../test/engine-harness.js";
import { createFakeOpenAI, type FakeServer } from "../../test/fake-openai-server.js";
import { storedRowsOf } from "../../test/run-rows.js";
import { registerMember, type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";

const state = [
  { name: "x", type: "number" },
  { name: "doubled", type: "any" },
  { name: "log", type: "list", reducer: "append" },
  { name: "meta", type: "object", reducer: "merge" },
];
/** start → t1 (doubles x) → t2 (appends a note to log) → t3 (merges into meta). */
const threeCalls = (url: string) => ({
  name: "three calls",
  state,
  nodes: [
    httpTool("t1", `${url}/double`, "doubled", { body: { value: "{{state.x}}" } }),
    httpTool("t2", `${url}/note`, "log", { body: { value: "{{state.doubled.result}}" } }),
    httpTool("t3", `${url}/meta`, "meta", { body: { value: "{{state.doubled.result}}" } }),
  ],
  edges: [edge("start", "t1"), edge("t1", "t2"), edge("t2", "t3")],
});

describe("runs: one node on a chosen state", () => {
  let studio: TestStudio;
  let owner: Session;
  let other: Session;
  let receiver: Receiver;
  let llm: FakeServer;
  let workflowId: string;
  let runId: string;
  let runRows: string;

  const calls = (path: string) => receiver.requests.filter((request) => request.path === path).length;
  const api = (method: "GET" | "POST", url: string, payload?: object, session = owner) =>
    studio.app.inject({ method, url, headers: session.auth, ...(payload ? { payload } : {}) });
  const runNode = (payload: object, session = owner) => api("POST", "/api/node-runs", payload, session);

  const rowsOf = (runId: string) => storedRowsOf(studio.container.database.db, runId);

  /** How many rows the tables that runs write hold, all runs together. */
  async function tableCounts(): Promise<Record<string, number>> {
    const db = studio.container.database.db;
    const count = async (table: "runs" | "run_events" | "checkpoints" | "checkpoint_writes" | "node_results") =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      runs: await count("runs"),
      run_events: await count("run_events"),
      checkpoints: await count("checkpoints"),
      checkpoint_writes: await count("checkpoint_writes"),
      node_results: await count("node_results"),
    };
  }

  beforeAll(async () => {
    receiver = await startReceiver((request) => {
      const value = (request.body as { value?: unknown } | null)?.value;
      if (request.path === "/double") return { json: { result: Number(value) * 2 } };
      if (request.path === "/note") return { json: { note: value } };
      if (request.path === "/meta") return { json: { seen: value } };
      if (request.path === "/fail") return { status: 500, json: { down: true } };
      return { json: { path: request.path } };
    });
    llm = await createFakeOpenAI({
      reply: (request) => ({
        text: `echo ${request.body.messages.at(-1).content}`,
        usage: { input_tokens: 7, output_tokens: 3 },
      }),
    });
    studio = await startTestStudio({
      STUDIO_ALLOW_SIGNUP: "1",
      STUDIO_EGRESS_ALLOW: "127.0.0.1",
      OPENAI_BASE_URL: llm.url,
      OPENAI_API_KEY: "sk-test-key",
    });
    await studio.container.runs.start(60_000);
    owner = await setupOwner(studio);
    other = await registerMember(studio, "other@example.com");
    workflowId = (await api("POST", "/api/workflows", threeCalls(receiver.url))).json().data.id;
    const key = (await api("POST", "/api/api-keys", { name: "hooks" })).json().data.key as string;
    const hook = await studio.app.inject({
      method: "POST",
      url: `/api/hooks/workflows/${workflowId}/runs`,
      headers: { authorization: `Bearer ${key}` },
      payload: { input: { x: 5 } },
    });
    runId = hook.json().data.run_id;
    await studio.container.runs.idle();
    expect((await api("GET", `/api/runs/${runId}`)).json().data).toMatchObject({
      status: "ok",
      state: { x: 5, doubled: { result: 10 }, log: [{ note: 10 }], meta: { seen: 10 } },
    });
    runRows = await rowsOf(runId);
  });
  afterAll(async () => {
    await studio.close();
    await receiver.close();
    await llm.close();
  });

  it("runs one node on a past run's superstep without running anything upstream, and writes nothing", async () => {
    const steps = (await api("GET", `/api/runs/${runId}/steps`)).json().data;
    const before = { double: calls("/double"), note: calls("/note"), meta: calls("/meta") };
    const counts = await tableCounts();
    const response = await runNode({
      workflow_id: workflowId,
      node_id: "t2",
      from: { run_id: runId, checkpoint_id: steps[1].checkpoint_id },
    });
    expect(response.statusCode).toBe(200);
    const result = response.json().data;
    expect(result).toMatchObject({
      node_id: "t2",
      node_type: "tool",
      status: "ok",
      input_state: { x: 5, doubled: { result: 10 }, log: [], meta: {} },
      output: { log: { note: 10 } },
      // The append reducer adds the item to the list.
      state: { x: 5, doubled: { result: 10 }, log: [{ note: 10 }], meta: {} },
      route: null,
      error: null,
    });
    expect(typeof result.duration_ms).toBe("number");
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
    // The node was called once; nothing upstream or downstream ran.
    expect({ double: calls("/double"), note: calls("/note"), meta: calls("/meta") }).toEqual({
      ...before,
      note: before.note + 1,
    });
    // Its idempotency key is its own, never the past run's.
    expect(String(receiver.requests.at(-1)?.headers["idempotency-key"])).toMatch(/^node-run-[0-9a-f-]+:t2:0$/);
    // Nothing was written: no run, event, checkpoint or ledger row anywhere, the past run untouched.
    expect(await tableCounts()).toEqual(counts);
    expect(await rowsOf(runId)).toBe(runRows);
  });

  it("applies the update through each field's reducer, with edited fields replacing the superstep's", async () => {
    const last = await runNode({
      workflow_id: workflowId,
      version: 1,
      node_id: "t3",
      from: { run_id: runId, superstep: 3 },
      state: { meta: { first: 1 }, doubled: { result: 7 } },
    });
    expect(last.json().data).toMatchObject({
      status: "ok",
      input_state: { x: 5, doubled: { result: 7 }, log: [{ note: 10 }], meta: { first: 1 } },
      output: { meta: { seen: 7 } },
      // merge keeps the fields it does not write.
      state: { x: 5, doubled: { result: 7 }, log: [{ note: 10 }], meta: { first: 1, seen: 7 } },
    });
    const again = await runNode({ workflow_id: workflowId, node_id: "t2", from: { run_id: runId, superstep: 3 } });
    // append: the past run's item, then this one.
    expect(again.json().data.state.log).toEqual([{ note: 10 }, { note: 10 }]);
    expect(await rowsOf(runId)).toBe(runRows);
  });

  it("runs a node of an unsaved document on typed JSON: a Condition's route, a failing Tool's error", async () => {
    const document = {
      name: "unsaved",
      state: [
        { name: "n", type: "number" },
        { name: "reply", type: "any" },
      ],
      nodes: [
        {
          id: "check",
          type: "condition",
          position: at,
          data: {
            rules: [{ label: "big", conditions: [{ field: "n", operator: "gte", value: 10 }] }],
            default_label: "small",
          },
        },
        httpTool("big", `${receiver.url}/fail`, "reply"),
        httpTool("small", `${receiver.url}/small`, "reply"),
      ],
      edges: [edge("start", "check"), edge("check", "big", "big"), edge("check", "small", "small")],
    };
    const routed = await runNode({ document, node_id: "check", state: { n: 12 } });
    expect(routed.statusCode).toBe(200);
    expect(routed.json().data).toMatchObject({
      node_type: "condition",
      status: "ok",
      route: "big",
      output: {},
      state: { n: 12 },
    });
    expect((await runNode({ document, node_id: "check", state: { n: 3 } })).json().data.route).toBe("small");

    const before = calls("/fail");
    const failed = await runNode({ document, node_id: "big", state: { n: 12 } });
    expect(failed.statusCode).toBe(200);
    expect(failed.json().data).toMatchObject({
      node_id: "big",
      status: "error",
      output: null,
      state: null,
      error: { code: "HTTP_TOOL_STATUS" },
    });
    expect(failed.json().data.error.message).toEqual(expect.any(String));
    expect(calls("/fail")).toBe(before + 1);
  });

  it("runs an LLM node alone: one call to the model, its answer and token usage", async () => {
    const document = {
      name: "ask",
      state: [
        { name: "topic", type: "string" },
        { name: "answer", type: "string" },
      ],
      nodes: [
        {
          id: "ask",
          type: "llm",
          position: at,
          data: { model: "gpt-test", prompt: "Tell me about {{state.topic}}", output_field: "answer" },
        },
      ],
      edges: [edge("start", "ask")],
    };
    const before = llm.requests.length;
    const response = await runNode({ document, node_id: "ask", state: { topic: "pins" } });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({
      node_type: "llm",
      status: "ok",
      output: { answer: "echo Tell me about pins" },
      state: { topic: "pins", answer: "echo Tell me about pins" },
      usage: { input_tokens: 7, output_tokens: 3 },
      error: null,
    });
    expect(llm.requests.length).toBe(before + 1);
  });

  it("refuses bad input with its code, and runs nothing", async () => {
    const steps = (await api("GET", `/api/runs/${runId}/steps`)).json().data;
    const requestsBefore = receiver.requests.length;
    const refused = async (payload: object, session = owner) => {
      const response = await runNode(payload, session);
      return { status: response.statusCode, code: response.json().error?.code };
    };
    const saved = { workflow_id: workflowId };
    // A node the workflow does not have.
    expect(await refused({ ...saved, node_id: "ghost" })).toEqual({ status: 404, code: "NODE_NOT_FOUND" });
    // A state that does not fit the state fields (typed, or a field the workflow does not have).
    expect(await refused({ ...saved, node_id: "t1", state: { x: "five" } })).toEqual({
      status: 422,
      code: "FORK_STATE_INVALID",
    });
    expect(await refused({ ...saved, node_id: "t1", state: { nope: 1 } })).toEqual({
      status: 422,
      code: "FORK_STATE_INVALID",
    });
    expect(await refused({ ...saved, node_id: "t2", state: { log: "not a list" } })).toEqual({
      status: 422,
      code: "FORK_STATE_INVALID",
    });
    // Another user's run, or their workflow.
    const fromRun = { run_id: runId, checkpoint_id: steps[1].checkpoint_id };
    const theirs = (await api("POST", "/api/workflows", threeCalls(receiver.url), other)).json().data.id;
    expect(await refused({ workflow_id: theirs, node_id: "t2", from: fromRun }, other)).toEqual({
      status: 404,
      code: "RUN_NOT_FOUND",
    });
    expect(await refused({ workflow_id: theirs, node_id: "t2" })).toEqual({ status: 404, code: "WORKFLOW_NOT_FOUND" });
    expect(await refused({ ...saved, version: 9, node_id: "t2" })).toEqual({ status: 404, code: "VERSION_NOT_FOUND" });
    // A checkpoint or superstep the run does not have.
    expect(await refused({ ...saved, node_id: "t2", from: { run_id: runId, checkpoint_id: "no-such" } })).toEqual({
      status: 404,
      code: "RUN_CHECKPOINT_NOT_FOUND",
    });
    expect(await refused({ ...saved, node_id: "t2", from: { run_id: runId, superstep: 42 } })).toEqual({
      status: 404,
      code: "RUN_CHECKPOINT_NOT_FOUND",
    });
    // Nodes that cannot run alone: Human, For each and its body, Join, Subgraph, Start, End.
    expect(await refused({ document: approvalWorkflow(), node_id: "ask" })).toEqual({
      status: 422,
      code: "NODE_RUN_UNSUPPORTED",
    });
    expect(await refused({ ...saved, node_id: "start" })).toEqual({ status: 422, code: "NODE_RUN_UNSUPPORTED" });
    const forEach = {
      name: "each",
      state: [
        { name: "items", type: "list" },
        { name: "results", type: "list" },
      ],
      nodes: [
        { id: "each", type: "for_each", position: at, data: { items: "{{state.items}}", output_field: "results" } },
        httpTool("body", `${receiver.url}/item`, "results"),
        {
          id: "after",
          type: "code",
          position: at,
          data: { language: "javascript", code: "function main(){return {}}" },
        },
      ],
      edges: [edge("start", "each"), edge("each", "body", "item"), edge("each", "after", "done")],
    };
    expect(await refused({ document: forEach, node_id: "each" })).toEqual({
      status: 422,
      code: "NODE_RUN_UNSUPPORTED",
    });
    // A For each body runs as one iteration, on an item; no other node takes one.
    const body = await runNode({ document: forEach, node_id: "body" });
    expect(body.json().error).toMatchObject({
      code: "NODE_RUN_UNSUPPORTED",
      details: { node_id: "body", reason: "for_each_body" },
    });
    const itemElsewhere = await runNode({ document: forEach, node_id: "after", iteration: { item: 1 } });
    expect(itemElsewhere.statusCode).toBe(422);
    expect(itemElsewhere.json().error).toMatchObject({
      code: "NODE_RUN_UNSUPPORTED",
      details: { node_id: "after", reason: "item_outside_for_each" },
    });
    for (const iteration of [{}, { item: 1, index: -1 }, { item: 1, extra: true }]) {
      expect(await refused({ document: forEach, node_id: "body", iteration })).toEqual({
        status: 422,
        code: "VALIDATION_FAILED",
      });
    }
    // A document that does not validate, and a request of the wrong shape.
    expect(await refused({ document: { name: "broken" }, node_id: "t1" })).toEqual({
      status: 422,
      code: "WORKFLOW_INVALID",
    });
    expect(await refused({ node_id: "t1" })).toEqual({ status: 422, code: "VALIDATION_FAILED" });
    expect(await refused({ ...saved, document: threeCalls(receiver.url), node_id: "t1" })).toEqual({
      status: 422,
      code: "VALIDATION_FAILED",
    });
    expect(await refused({ ...saved, node_id: "t1", from: { run_id: runId } })).toEqual({
      status: 422,
      code: "VALIDATION_FAILED",
    });
    // Nothing was called, and the past run is as it was.
    expect(receiver.requests.length).toBe(requestsBefore);
    expect(await rowsOf(runId)).toBe(runRows);
  });

  it("runs one iteration of a For each body on a given item, and writes no state", async () => {
    const document = {
      name: "each item",
      state: [
        { name: "items", type: "list" },
        { name: "results", type: "list" },
      ],
      nodes: [
        { id: "each", type: "for_each", position: at, data: { items: "{{state.items}}", output_field: "results" } },
        httpTool("body", `${receiver.url}/double`, "results", { body: { value: "{{item.n}}" } }),
      ],
      edges: [edge("start", "each"), edge("each", "body", "item"), edge("each", "end", "done")],
    };
    const before = calls("/double");
    const response = await runNode({
      document,
      node_id: "body",
      state: { items: [{ n: 1 }, { n: 21 }] },
      iteration: { item: { n: 21 }, index: 1 },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({
      node_id: "body",
      status: "ok",
      output: { results: { result: 42 } },
      state: null,
      error: null,
    });
    expect(calls("/double")).toBe(before + 1);
    expect(receiver.requests.at(-1)?.body).toEqual({ value: 21 });
  });

  it("documents the route in the OpenAPI reference", async () => {
    const { paths } = (await studio.app.inject({ method: "GET", url: "/api/docs/json" })).json();
    expect(Object.keys(paths["/api/node-runs"])).toEqual(["post"]);
    const body = paths["/api/node-runs"].post.requestBody.content["application/json"].schema;
    expect(Object.keys(body.properties).sort()).toEqual(
      ["context", "document", "from", "iteration", "node_id", "state", "version", "workflow_id"].sort(),
    );
  });
});
