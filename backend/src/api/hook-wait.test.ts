// A hook that waits for its run (`?wait=N`): answered 200 with how the run's turn ended (finished,
// waiting at a Human node, paused) when that comes within N seconds, else the usual 202 while the
// run goes on; it stops listening whichever way the wait ends.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  approvalWorkflow,
  conditionNode,
  edge,
  type Gate,
  gatedWorkflow,
  httpTool,
  startGate,
} from "../../test/engine-harness.js";
import { setupOwner, startTestStudio } from "../../test/test-studio.js";

interface HookAnswer {
  status: number;
  body: {
    data: { run_id: string; status: string; output?: unknown; error?: unknown; waiting?: unknown; next?: unknown };
    error?: { code: string; details?: unknown };
  };
}

const counter = {
  name: "counter",
  state: [{ name: "n", type: "number" }],
  nodes: [],
  edges: [edge("start", "end")],
};

/** A studio over a real socket with an owner, an API key and helpers for its hooks and runs. */
async function hookStudio(env: Record<string, string> = {}) {
  const studio = await startTestStudio({ STUDIO_EGRESS_ALLOW: "127.0.0.1", ...env });
  await studio.container.runs.start(60_000);
  const { auth } = await setupOwner(studio);
  const key = (
    await studio.app.inject({ method: "POST", url: "/api/api-keys", headers: auth, payload: { name: "hooks" } })
  ).json().data.key as string;
  await studio.app.listen({ port: 0, host: "127.0.0.1" });
  const base = `http://127.0.0.1:${(studio.app.server.address() as { port: number }).port}`;
  return {
    studio,
    auth,
    save: async (document: object) =>
      (await studio.app.inject({ method: "POST", url: "/api/workflows", headers: auth, payload: document })).json().data
        .id as string,
    hook: async (
      workflowId: string,
      query: string,
      options: { body?: object; idempotencyKey?: string; signal?: AbortSignal } = {},
    ): Promise<HookAnswer> => {
      const response = await fetch(`${base}/api/hooks/workflows/${workflowId}/runs${query}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          ...(options.idempotencyKey ? { "idempotency-key": options.idempotencyKey } : {}),
        },
        body: JSON.stringify(options.body ?? {}),
        signal: options.signal,
      });
      return { status: response.status, body: (await response.json()) as HookAnswer["body"] };
    },
    run: async (id: string) =>
      (await studio.app.inject({ method: "GET", url: `/api/runs/${id}`, headers: auth })).json().data as {
        status: string;
        output: unknown;
        waiting: unknown;
      },
    /** How many runs the owner has. */
    runCount: async () =>
      ((await studio.app.inject({ method: "GET", url: "/api/runs?limit=200", headers: auth })).json().data as unknown[])
        .length,
    /** Listeners of run events in this process: a finished wait leaves none behind. */
    listeners: () => studio.container.bus.listeners(),
  };
}

describe("a hook that waits for its run", () => {
  let gate: Gate;
  let s: Awaited<ReturnType<typeof hookStudio>>;

  beforeAll(async () => {
    gate = await startGate();
    s = await hookStudio();
  });
  afterAll(async () => {
    await gate.close();
    await s.studio.close();
  });

  it("answers 200 with the run's output once it finishes", async () => {
    const id = await s.save(counter);
    const answer = await s.hook(id, "?wait=30", { body: { input: { n: 3 } } });
    expect(answer.status).toBe(200);
    const run = await s.run(answer.body.data.run_id);
    expect(run.status).toBe("ok");
    expect(answer.body.data).toEqual({
      run_id: answer.body.data.run_id,
      status: "ok",
      output: run.output,
      error: null,
      waiting: null,
      next: null,
    });
    expect(answer.body.data.output).toMatchObject({ n: 3 });
    expect(s.listeners()).toBe(0);
  });

  it("answers 200 with the error when the run fails", async () => {
    // The port of a server that has closed: the node's call is refused.
    const closed = await startGate();
    const url = closed.url;
    await closed.close();
    const failing = {
      name: "failing",
      state: [{ name: "reply", type: "any" }],
      nodes: [httpTool("call", `${url}/gone`, "reply")],
      edges: [edge("start", "call"), edge("call", "end")],
    };
    const answer = await s.hook(await s.save(failing), "?wait=30");
    expect(answer.status).toBe(200);
    const run = (
      await s.studio.app.inject({ method: "GET", url: `/api/runs/${answer.body.data.run_id}`, headers: s.auth })
    ).json().data as { status: string; error: unknown };
    expect(run.status).toBe("error");
    expect(answer.body.data).toMatchObject({ status: "error", output: null });
    expect(answer.body.data.error).toEqual(run.error);
    expect(answer.body.data.error).toMatchObject({ code: "HTTP_TOOL_FAILED" });
  });

  it("answers 200 with the Human form when the run stops to wait for a person", async () => {
    const answer = await s.hook(await s.save(approvalWorkflow()), "?wait=30");
    expect(answer.status).toBe(200);
    expect(answer.body.data.status).toBe("waiting");
    expect(answer.body.data.waiting).toMatchObject({ message: "OK?", fields: [{ name: "ok", type: "boolean" }] });
    const run = await s.run(answer.body.data.run_id);
    expect(run.status).toBe("waiting");
    expect(answer.body.data.waiting).toEqual(run.waiting);
  });

  it("answers 200 paused, with the next nodes, for a run in step mode", async () => {
    const twoSteps = {
      name: "two steps",
      state: [{ name: "n", type: "number" }],
      nodes: [
        conditionNode("first", "big", { field: "n", operator: "gt", value: 10 }, "small"),
        conditionNode("second", "big", { field: "n", operator: "gt", value: 10 }, "small"),
      ],
      edges: [
        edge("start", "first"),
        edge("first", "second", "big"),
        edge("first", "second", "small"),
        edge("second", "end", "big"),
        edge("second", "end", "small"),
      ],
    };
    const answer = await s.hook(await s.save(twoSteps), "?wait=30", { body: { mode: "step", input: { n: 1 } } });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ status: "paused", next: ["second"] });
    expect((await s.run(answer.body.data.run_id)).status).toBe("paused");
  });

  it("answers 202 once the wait runs out, and the run goes on to finish", async () => {
    const id = await s.save(gatedWorkflow(gate.url, "slow"));
    const arrivals = gate.arrivals.length;
    const answer = await s.hook(id, "?wait=1");
    expect(answer.status).toBe(202);
    expect(["queued", "running"]).toContain(answer.body.data.status);
    expect(Object.keys(answer.body.data).sort()).toEqual(["run_id", "status"]);
    // The run was still held at the gate when the answer came: it cannot have ended.
    await gate.arrived(arrivals + 1);
    expect(s.listeners()).toBe(0);
    gate.release("/slow");
    await vi.waitFor(async () => expect((await s.run(answer.body.data.run_id)).status).toBe("ok"), {
      timeout: 30_000,
    });
  });

  it("says running when the wait runs out after the run has started", async () => {
    const id = await s.save(gatedWorkflow(gate.url, "started"));
    const arrivals = gate.arrivals.length;
    const answering = s.hook(id, "?wait=2");
    // Arrived at the gate within the wait: its run_started and node_started events came before.
    await gate.arrived(arrivals + 1);
    const answer = await answering;
    expect(answer.status).toBe(202);
    expect(answer.body.data.status).toBe("running");
    gate.release("/started");
  });

  it("waits for a run an earlier call with the same Idempotency-Key started", async () => {
    const id = await s.save(gatedWorkflow(gate.url, "retried"));
    const arrivals = gate.arrivals.length;
    const first = await s.hook(id, "", { idempotencyKey: "order-1" });
    expect(first.status).toBe(202);
    await gate.arrived(arrivals + 1);
    const waiting = s.hook(id, "?wait=30", { idempotencyKey: "order-1" });
    await vi.waitFor(() => expect(s.listeners()).toBe(1), { timeout: 30_000 });
    gate.release("/retried");
    const second = await waiting;
    expect(second.status).toBe(200);
    expect(second.body.data).toMatchObject({ run_id: first.body.data.run_id, status: "ok" });
    // Ended already: the retry is answered from the run's row.
    const third = await s.hook(id, "?wait=30", { idempotencyKey: "order-1" });
    expect(third.status).toBe(200);
    expect(third.body.data).toEqual(second.body.data);
    expect(s.listeners()).toBe(0);
  });

  it("stops listening when the caller goes away", async () => {
    const id = await s.save(gatedWorkflow(gate.url, "abandoned"));
    const arrivals = gate.arrivals.length;
    const caller = new AbortController();
    const answering = s.hook(id, "?wait=60", { signal: caller.signal });
    await gate.arrived(arrivals + 1);
    expect(s.listeners()).toBe(1);
    caller.abort();
    await expect(answering).rejects.toThrow();
    await vi.waitFor(() => expect(s.listeners()).toBe(0), { timeout: 30_000 });
    gate.release("/abandoned");
  });

  it("refuses a wait that is not a whole number of seconds from 0 to 300, creating no run", async () => {
    const id = await s.save(counter);
    const before = await s.runCount();
    for (const wait of ["abc", "-1", "301", "1.5", ""]) {
      const answer = await s.hook(id, `?wait=${wait}`);
      if (wait === "") {
        // An empty value is no wait at all.
        expect(answer.status).toBe(202);
        continue;
      }
      expect(answer.status, `wait=${wait}`).toBe(422);
      expect(answer.body.error?.code).toBe("VALIDATION_FAILED");
    }
    expect(await s.runCount()).toBe(before + 1);
  });

  it("refuses an unknown workflow or a missing key as a hook that does not wait", async () => {
    const missing = await s.hook("no-such-workflow", "?wait=5");
    expect(missing.status).toBe(404);
    expect(missing.body.error?.code).toBe("WORKFLOW_NOT_FOUND");
    const port = (s.studio.app.server.address() as { port: number }).port;
    const anonymous = await fetch(`http://127.0.0.1:${port}/api/hooks/workflows/x/runs?wait=5`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as HookAnswer["body"]).error?.code).toBe("AUTH_REQUIRED");
  });
});

describe("a waiting hook with runs on a run thread", () => {
  it("hears its run's end from the thread", async () => {
    const s = await hookStudio({ STUDIO_RUN_THREADS: "1" });
    try {
      const answer = await s.hook(await s.save(counter), "?wait=60", { body: { input: { n: 7 } } });
      expect(answer.status).toBe(200);
      expect(answer.body.data).toMatchObject({ status: "ok", output: { n: 7 } });
      expect((await s.run(answer.body.data.run_id)).status).toBe("ok");
      expect(s.listeners()).toBe(0);
    } finally {
      await s.studio.close();
    }
  });
});

describe("a waiting hook when the server stops", () => {
  it("is answered 202 at once, and the server closes", async () => {
    const gate = await startGate();
    const s = await hookStudio();
    try {
      const id = await s.save(gatedWorkflow(gate.url, "stopping"));
      const answering = s.hook(id, "?wait=300");
      await gate.arrived(1);
      const closing = s.studio.app.close();
      const answer = await answering;
      expect(answer.status).toBe(202);
      expect(answer.body.data.status).toBe("running");
      gate.open();
      await closing;
    } finally {
      await s.studio.close();
      await gate.close();
    }
  });
});

describe("waiting hooks and the requests in flight", () => {
  it("stop counting once their run is accepted, and past STUDIO_MAX_IN_FLIGHT waiting ones a hook answers 202 at once", async () => {
    const gate = await startGate();
    const s = await hookStudio({ STUDIO_MAX_IN_FLIGHT: "2", STUDIO_WORKER_CONCURRENCY: "4" });
    try {
      const id = await s.save(gatedWorkflow(gate.url, "held"));
      const first = s.hook(id, "?wait=300");
      const second = s.hook(id, "?wait=300");
      await gate.arrived(2);
      // Two hooks wait, yet the server answers other requests: they no longer count.
      expect(s.studio.app.requestLoad.inFlight).toBe(0);
      expect(s.listeners()).toBe(2);
      const third = await s.hook(id, "?wait=300");
      expect(third.status).toBe(202);
      expect(s.listeners()).toBe(2);
      gate.open();
      expect((await first).status).toBe(200);
      expect((await second).status).toBe(200);
      expect(s.studio.app.requestLoad.inFlight).toBe(0);
    } finally {
      await s.studio.close();
      await gate.close();
    }
  });
});
