// STUDIO_RUN_TIMEOUT counts time spent running, one turn at a time: never the time a run waits
// for a person or stays paused. The engine, the worker and the sweeper all measure it from the
// start of the current turn; time passes here through the sweeper's `now` and back-dated rows,
// never through real waiting.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { at, edge, type Gate, gatedWorkflow, httpTool, startGate } from "../../test/engine-harness.js";
import { type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";

const TIMEOUT_S = 600;
const DAY_MS = 24 * 3600_000;

/** Asks a person first, then calls the gate: two turns with a wait between them. */
function approvalThenCall(gateUrl: string, name: string) {
  return {
    name,
    state: [
      { name: "answer", type: "object" },
      { name: "reply", type: "any" },
    ],
    nodes: [
      {
        id: "ask",
        type: "human",
        position: at,
        data: { message: "OK?", fields: [{ name: "ok", type: "boolean", required: true }], output_field: "answer" },
      },
      httpTool("call", `${gateUrl}/${name}`, "reply", { timeout_ms: 120_000 }),
    ],
    edges: [edge("start", "ask"), edge("ask", "call")],
  };
}

async function prepare(studio: TestStudio) {
  const owner = await setupOwner(studio);
  const key = (
    await studio.app.inject({ method: "POST", url: "/api/api-keys", headers: owner.auth, payload: { name: "hooks" } })
  ).json().data.key as string;
  const start = async (document: object) => {
    const workflowId = (
      await studio.app.inject({ method: "POST", url: "/api/workflows", headers: owner.auth, payload: document })
    ).json().data.id as string;
    const response = await studio.app.inject({
      method: "POST",
      url: `/api/hooks/workflows/${workflowId}/runs`,
      headers: { authorization: `Bearer ${key}` },
      payload: {},
    });
    return response.json().data.run_id as string;
  };
  const getRun = async (id: string) =>
    (await studio.app.inject({ method: "GET", url: `/api/runs/${id}`, headers: owner.auth })).json().data;
  const events = async (id: string) =>
    (await studio.app.inject({ method: "GET", url: `/api/runs/${id}/events`, headers: owner.auth })).json().data as {
      type: string;
      data: Record<string, unknown>;
    }[];
  return { owner, start, getRun, events };
}

describe("run timeout: time spent running, per turn", () => {
  let studio: TestStudio;
  let gate: Gate;
  let api: Awaited<ReturnType<typeof prepare>>;
  let owner: Session;

  beforeAll(async () => {
    gate = await startGate();
    studio = await startTestStudio({ STUDIO_EGRESS_ALLOW: "127.0.0.1", STUDIO_RUN_TIMEOUT: String(TIMEOUT_S) });
    await studio.container.runs.start(60_000);
    api = await prepare(studio);
    owner = api.owner;
  });
  afterAll(async () => {
    await gate.close();
    await studio.close();
  });

  it("resumes a run answered long after STUDIO_RUN_TIMEOUT and finishes it ok", async () => {
    const runId = await api.start(approvalThenCall(gate.url, "late-answer"));
    await studio.container.runs.idle();
    expect((await api.getRun(runId)).status).toBe("waiting");
    // The person answers two days after the run began.
    const twoDaysAgo = new Date(Date.now() - 2 * DAY_MS).toISOString();
    await studio.container.database.db
      .updateTable("runs")
      .set({ created_at: twoDaysAgo, started_at: twoDaysAgo, turn_started_at: twoDaysAgo })
      .where("id", "=", runId)
      .execute();
    expect(await studio.container.runs.sweep()).toBe(0);
    const resumed = await studio.app.inject({
      method: "POST",
      url: `/api/runs/${runId}/resume`,
      headers: owner.auth,
      payload: { input: { ok: true } },
    });
    expect(resumed.statusCode).toBe(200);

    // The second turn is running (held at the gate): the sweeper counts it from its own start.
    await gate.arrived(1);
    expect((await api.getRun(runId)).status).toBe("running");
    await studio.container.runs.sweep();
    expect((await api.getRun(runId)).status).toBe("running");
    await studio.container.runs.sweep(new Date(Date.now() + TIMEOUT_S * 1000));
    expect((await api.getRun(runId)).status).toBe("running");

    gate.release("/late-answer");
    await studio.container.runs.idle();
    const run = await api.getRun(runId);
    expect(run).toMatchObject({
      status: "ok",
      error: null,
      state: { answer: { ok: true }, reply: { path: "/late-answer" } },
    });
  });

  it("still ends a turn that runs too long as timeout", async () => {
    const runId = await api.start(gatedWorkflow(gate.url, "too-long"));
    await gate.arrived(2);
    expect(gate.arrivals[1]).toBe("/too-long");
    // Well past STUDIO_RUN_TIMEOUT and the sweeper's grace, in the same turn.
    const later = new Date(Date.now() + TIMEOUT_S * 1000 + 61_000 + 1000);
    expect(await studio.container.runs.sweep(later)).toBe(1);
    gate.release("/too-long");
    await studio.container.runs.idle();
    const run = await api.getRun(runId);
    expect(run.status).toBe("timeout");
    expect(run.error.code).toBe("RUN_TIMEOUT");
    const finished = (await api.events(runId)).filter((e) => e.type === "run_finished");
    expect(finished.map((e) => e.data.status)).toEqual(["timeout"]);
  });
});

describe("run timeout: a turn taken over after a crash keeps its clock", () => {
  let studio: TestStudio;
  let gate: Gate;
  let api: Awaited<ReturnType<typeof prepare>>;

  beforeAll(async () => {
    gate = await startGate();
    studio = await startTestStudio({ STUDIO_EGRESS_ALLOW: "127.0.0.1", STUDIO_RUN_TIMEOUT: String(TIMEOUT_S) });
    api = await prepare(studio);
  });
  afterAll(async () => {
    await gate.close();
    await studio.close();
  });

  it("times out a crashed turn whose time is spent, and gives one with time left only the rest", async () => {
    // Queued only: the worker loop has not started yet. When it starts, it takes both.
    const spent = await api.start(gatedWorkflow(gate.url, "spent"));
    const partly = await api.start(gatedWorkflow(gate.url, "partly"));
    // As if a worker had taken each run and died: its lease has expired, its turn began long ago
    // (the first) or 595 s into a 600 s budget (the second).
    const crashed = (turnStartedAt: number) => ({
      status: "running",
      lease_gen: 1,
      attempt: 1,
      lease_owner: "worker-that-died",
      lease_expires_at: new Date(Date.now() - 1000).toISOString(),
      started_at: new Date(turnStartedAt).toISOString(),
      turn_started_at: new Date(turnStartedAt).toISOString(),
    });
    const { db } = studio.container.database;
    await db
      .updateTable("runs")
      .set(crashed(Date.now() - 2 * DAY_MS))
      .where("id", "=", spent)
      .execute();
    await db
      .updateTable("runs")
      .set(crashed(Date.now() - (TIMEOUT_S - 5) * 1000))
      .where("id", "=", partly)
      .execute();

    await studio.container.runs.start(60_000);
    // The second run calls its node again and is stopped by the engine within the 5 s it had
    // left, while the gate still holds the call.
    await studio.container.runs.idle();
    for (const id of [spent, partly]) {
      const run = await api.getRun(id);
      expect(run.status, id).toBe("timeout");
      expect(run.error.code).toBe("RUN_TIMEOUT");
      expect(run.attempt).toBe(2);
    }
    expect(gate.arrivals).toEqual(["/partly"]);
    expect((await api.events(spent)).map((e) => [e.type, e.data.status])).toEqual([["run_finished", "timeout"]]);
  });
});
