// Pinned outputs for editor runs: a pinned node does not execute (its receiver sees no call), its
// pinned output is its update, the nodes after it read it from the state, and the run records the
// pinned nodes. A bad pin refuses the start and nothing runs. Hooks and schedules take no pins.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { approvalWorkflow, at, edge, httpTool, type Receiver, startReceiver } from "../../test/engine-harness.js";
import { type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";

interface Message {
  type: string;
  run_id?: string;
  error?: { code: string; details?: unknown };
}

/** t1 doubles x at the receiver, t2 adds one to t1's result there: start → t1 → check → t2. */
const twoCalls = (url: string) => ({
  name: "two calls",
  state: [
    { name: "x", type: "number" },
    { name: "doubled", type: "object" },
    { name: "plus", type: "any" },
    { name: "notes", type: "list", reducer: "append" },
  ],
  nodes: [
    httpTool("t1", `${url}/double`, "doubled", { body: { value: "{{state.x}}" } }),
    {
      id: "check",
      type: "condition",
      position: at,
      data: { rules: [{ label: "go", conditions: [{ field: "x", operator: "gte", value: 0 }] }], default_label: "go" },
    },
    httpTool("t2", `${url}/plus`, "plus", { body: { value: "{{state.doubled.result}}" } }),
  ],
  edges: [edge("start", "t1"), edge("t1", "check"), edge("check", "t2", "go")],
});

describe("runs: pinned outputs in editor runs", () => {
  let studio: TestStudio;
  let owner: Session;
  let receiver: Receiver;
  let base: string;
  let workflowId: string;
  const sockets: WebSocket[] = [];

  const calls = (path: string) => receiver.requests.filter((request) => request.path === path);
  const api = (method: "GET" | "POST", url: string, payload?: object) =>
    studio.app.inject({ method, url, headers: owner.auth, ...(payload ? { payload } : {}) });
  const runCount = async () =>
    Number(
      (
        await studio.container.database.db
          .selectFrom("runs")
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  /** Sends one start message on a signed-in socket; resolves with the `started` or `error` answer. */
  async function start(message: object): Promise<Message> {
    const socket = new WebSocket(`${base}?token=${owner.token}`);
    sockets.push(socket);
    const messages: Message[] = [];
    const answered = new Promise<Message>((resolve, reject) => {
      socket.on("message", (raw) => {
        const parsed = JSON.parse(String(raw)) as Message;
        messages.push(parsed);
        if (parsed.type === "ready") socket.send(JSON.stringify(message));
        if (parsed.type === "started" || parsed.type === "error") resolve(parsed);
      });
      socket.once("close", () => reject(new Error(`closed without an answer: ${JSON.stringify(messages)}`)));
      socket.once("error", reject);
    });
    const answer = await answered;
    socket.close();
    return answer;
  }

  beforeAll(async () => {
    receiver = await startReceiver((request) => {
      const value = (request.body as { value?: unknown } | null)?.value;
      if (request.path === "/double") return { json: { result: Number(value) * 2 } };
      return { json: { result: Number(value) + 1 } };
    });
    studio = await startTestStudio({ STUDIO_EGRESS_ALLOW: "127.0.0.1" });
    await studio.container.runs.start(60_000);
    owner = await setupOwner(studio);
    workflowId = (await api("POST", "/api/workflows", twoCalls(receiver.url))).json().data.id;
    await studio.app.listen({ port: 0, host: "127.0.0.1" });
    base = `ws://127.0.0.1:${(studio.app.server.address() as { port: number }).port}/ws/run`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await studio.close();
    await receiver.close();
  });

  it.each([
    ["a saved workflow", () => ({ type: "start", workflow_id: workflowId })],
    ["an unsaved document", () => ({ type: "start_document", document: twoCalls(receiver.url) })],
  ])("runs %s with a pinned node: it is not called, the next node reads its pinned output", async (_, source) => {
    const before = { double: calls("/double").length, plus: calls("/plus").length };
    const started = await start({ ...source(), input: { x: 5 }, pins: { t1: { doubled: { result: 100 } } } });
    expect(started.type).toBe("started");
    await studio.container.runs.idle();
    const run = (await api("GET", `/api/runs/${started.run_id}`)).json().data;
    expect(run).toMatchObject({
      status: "ok",
      trigger: "editor",
      pinned_nodes: ["t1"],
      state: { x: 5, doubled: { result: 100 }, plus: { result: 101 } },
      metrics: { nodes_pinned: 1, nodes_finished: 3 },
    });
    // The pinned node's receiver saw nothing; the node after it got the pinned value.
    expect(calls("/double").length).toBe(before.double);
    expect(calls("/plus").length).toBe(before.plus + 1);
    expect(calls("/plus").at(-1)?.body).toEqual({ value: 100 });
    const events = (await api("GET", `/api/runs/${started.run_id}/events`)).json().data;
    const finished = events.filter((e: { type: string }) => e.type === "node_finished");
    expect(
      finished.map((e: { node_id: string; data: { pinned?: boolean; output: unknown } }) => [
        e.node_id,
        e.data.pinned === true,
      ]),
    ).toEqual([
      ["t1", true],
      ["check", false],
      ["t2", false],
    ]);
    expect(finished[0].data.output).toEqual({ doubled: { result: 100 } });
    const listed = (await api("GET", "/api/runs?limit=200")).json().data;
    expect(listed.find((item: { id: string }) => item.id === started.run_id)).toMatchObject({ pinned_nodes: ["t1"] });
    // The node ledger holds only what was called.
    const ledger = await studio.container.database.db
      .selectFrom("node_results")
      .select("key")
      .where("run_id", "=", started.run_id as string)
      .execute();
    expect(ledger.map((row) => row.key.split(":")[1])).toEqual(["t2"]);
  });

  it("pins a Human node's answer: the run does not wait for a person", async () => {
    const started = await start({
      type: "start_document",
      document: approvalWorkflow(),
      pins: { ask: { answer: { ok: true } } },
    });
    await studio.container.runs.idle();
    expect((await api("GET", `/api/runs/${started.run_id}`)).json().data).toMatchObject({
      status: "ok",
      pinned_nodes: ["ask"],
      waiting: null,
      state: { answer: { ok: true } },
    });
  });

  it("runs without pins as before, and records no pinned nodes", async () => {
    const before = calls("/double").length;
    const started = await start({ type: "start", workflow_id: workflowId, input: { x: 2 } });
    await studio.container.runs.idle();
    const run = (await api("GET", `/api/runs/${started.run_id}`)).json().data;
    expect(run).toMatchObject({
      status: "ok",
      pinned_nodes: [],
      state: { doubled: { result: 4 }, plus: { result: 5 } },
    });
    expect(calls("/double").length).toBe(before + 1);
  });

  it("refuses a bad pin before the run starts: nothing is created or called", async () => {
    const runsBefore = await runCount();
    const requestsBefore = receiver.requests.length;
    const refused = async (pins: object, source: object = { type: "start", workflow_id: workflowId }) => {
      const answer = await start({ ...source, input: { x: 1 }, pins });
      expect(answer.type).toBe("error");
      return answer.error?.code;
    };
    // A node that is not in the workflow (deleted since the pin was made).
    expect(await refused({ ghost: { doubled: {} } })).toBe("PIN_NODE_NOT_FOUND");
    expect(
      await refused(
        { t1: { doubled: { result: 1 } }, gone: {} },
        { type: "start_document", document: twoCalls(receiver.url) },
      ),
    ).toBe("PIN_NODE_NOT_FOUND");
    // Nodes that steer the run are not pinned.
    expect(await refused({ check: {} })).toBe("PIN_NODE_NOT_PINNABLE");
    expect(await refused({ start: {} })).toBe("PIN_NODE_NOT_PINNABLE");
    // An output that does not fit what the node writes: a field it does not write, a wrong type.
    expect(await refused({ t1: { plus: 1 } })).toBe("PIN_OUTPUT_INVALID");
    expect(await refused({ t1: { doubled: "a string" } })).toBe("PIN_OUTPUT_INVALID");
    // Not an object at all.
    expect(await refused({ t1: [1, 2] })).toBe("VALIDATION_FAILED");
    expect(await runCount()).toBe(runsBefore);
    expect(receiver.requests.length).toBe(requestsBefore);
  });

  it("never applies pins to hook or schedule runs: their requests with pins are refused", async () => {
    const runsBefore = await runCount();
    const key = (await api("POST", "/api/api-keys", { name: "hooks" })).json().data.key as string;
    const hook = (payload: object) =>
      studio.app.inject({
        method: "POST",
        url: `/api/hooks/workflows/${workflowId}/runs`,
        headers: { authorization: `Bearer ${key}` },
        payload,
      });
    const withPins = await hook({ input: { x: 3 }, pins: { t1: { doubled: { result: 100 } } } });
    expect(withPins.statusCode).toBe(422);
    expect(withPins.json().error.code).toBe("VALIDATION_FAILED");
    expect(JSON.stringify(withPins.json().error.details)).toContain("pins");
    const schedule = await api("POST", `/api/workflows/${workflowId}/schedules`, {
      cron: "0 9 * * *",
      pins: { t1: { doubled: { result: 100 } } },
    });
    expect(schedule.statusCode).toBe(422);
    expect(schedule.json().error.code).toBe("VALIDATION_FAILED");
    expect(await runCount()).toBe(runsBefore);

    // A hook run of the same workflow calls every node and records no pinned nodes.
    const before = calls("/double").length;
    const accepted = await hook({ input: { x: 3 } });
    expect(accepted.statusCode).toBe(202);
    await studio.container.runs.idle();
    const run = (await api("GET", `/api/runs/${accepted.json().data.run_id}`)).json().data;
    expect(run).toMatchObject({ status: "ok", trigger: "api", pinned_nodes: [], state: { doubled: { result: 6 } } });
    expect(run.metrics.nodes_pinned).toBe(0);
    expect(calls("/double").length).toBe(before + 1);
  });
});
