// A burst beyond what the server takes, from many users at once, is refused at once with
// 503 SERVER_BUSY and Retry-After: never a timeout, a crash or a lost run. Two bounds: runs queued
// and running in the process (STUDIO_MAX_QUEUED), and requests handled at once
// (STUDIO_MAX_IN_FLIGHT). The per-user limits are raised here; they have tests of their own.
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gate, gatedWorkflow, startGate } from "../../test/engine-harness.js";
import { registerMember, type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";

const NO_USER_LIMITS = {
  STUDIO_ALLOW_SIGNUP: "1",
  STUDIO_EGRESS_ALLOW: "127.0.0.1",
  STUDIO_USER_RUN_RATE: "100000",
  STUDIO_USER_MAX_QUEUED: "1000000",
  STUDIO_HOOK_RATE_LIMIT: "1000000",
};

interface Caller {
  key: string;
  workflowId: string;
}

/** A user with an API key and a saved workflow whose run waits at `gate` until released. */
async function callerOf(studio: TestStudio, session: Session, gate: Gate, name: string): Promise<Caller> {
  const key = (
    await studio.app.inject({ method: "POST", url: "/api/api-keys", headers: session.auth, payload: { name } })
  ).json().data.key as string;
  const workflowId = (
    await studio.app.inject({
      method: "POST",
      url: "/api/workflows",
      headers: session.auth,
      payload: gatedWorkflow(gate.url, name),
    })
  ).json().data.id as string;
  return { key, workflowId };
}

function baseOf(studio: TestStudio): string {
  const { port } = studio.app.server.address() as { port: number };
  return `http://127.0.0.1:${port}`;
}

async function trigger(base: string, caller: Caller, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}/api/hooks/workflows/${caller.workflowId}/runs`, {
    method: "POST",
    headers: { authorization: `Bearer ${caller.key}`, "content-type": "application/json", ...headers },
    body: "{}",
  });
  const body = (await response.json()) as {
    data?: { run_id: string };
    error?: { code: string; details: { reason?: string; limit?: number; retry_after_seconds?: number } };
  };
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body };
}

const runsOf = (studio: TestStudio, workflowIds: string[]) =>
  studio.container.database.db
    .selectFrom("runs")
    .select(["id", "status"])
    .where("workflow_id", "in", workflowIds)
    .execute();

describe("runs queued in the server, all users together (STUDIO_MAX_QUEUED)", () => {
  const CAP = 20;
  let studio: TestStudio;
  let gate: Gate;
  let callers: Caller[];

  beforeAll(async () => {
    gate = await startGate();
    studio = await startTestStudio({ ...NO_USER_LIMITS, STUDIO_MAX_QUEUED: String(CAP) });
    await studio.container.runs.start(60_000);
    await studio.app.listen({ port: 0, host: "127.0.0.1" });
    const sessions = [await setupOwner(studio)];
    for (const name of ["b", "c", "d"]) sessions.push(await registerMember(studio, `${name}@example.com`));
    callers = await Promise.all(sessions.map((session, i) => callerOf(studio, session, gate, `user${i}`)));
  });
  afterAll(async () => {
    await gate.close();
    await studio.close();
  });

  it("refuses a burst from many users beyond the cap with 503 SERVER_BUSY and Retry-After, and runs every run it accepted", async () => {
    const base = baseOf(studio);
    const first = callers[0] as Caller;
    // Runs wait at the gate: nothing ends during the burst, so exactly the cap is taken.
    const early = await trigger(base, first, { "idempotency-key": "early" });
    expect(early.status).toBe(202);

    const burst = await Promise.all(Array.from({ length: 200 }, (_, i) => trigger(base, callers[i % 4] as Caller)));
    const accepted = burst.filter((r) => r.status === 202);
    const refused = burst.filter((r) => r.status !== 202);
    expect(accepted).toHaveLength(CAP - 1);
    expect(refused).toHaveLength(200 - (CAP - 1));
    for (const answer of refused) {
      expect(answer.status).toBe(503);
      expect(answer.body.error).toMatchObject({
        code: "SERVER_BUSY",
        details: { reason: "queue_full", limit: CAP, retry_after_seconds: 10 },
      });
      expect(answer.retryAfter).toBe("10");
    }
    // Each user had triggers refused: the bound is the server's, not one user's.
    const workflowIds = callers.map((c) => c.workflowId);
    const runs = await runsOf(studio, workflowIds);
    expect(runs).toHaveLength(CAP);
    expect(new Set(runs.map((r) => r.id))).toEqual(
      new Set([early.body.data?.run_id, ...accepted.map((r) => r.body.data?.run_id)]),
    );

    // A retried trigger still gets its run back while the server is full.
    const retried = await trigger(base, first, { "idempotency-key": "early" });
    expect(retried.status).toBe(202);
    expect(retried.body.data?.run_id).toBe(early.body.data?.run_id);

    gate.open();
    await studio.container.runs.idle();
    const ended = await runsOf(studio, workflowIds);
    expect(ended.map((r) => r.status)).toEqual(Array(CAP).fill("ok"));
    expect(gate.arrivals).toHaveLength(CAP);

    // Once the runs have ended, the server takes runs again.
    expect((await trigger(base, callers[1] as Caller)).status).toBe(202);
    await studio.container.runs.idle();
  });
});

/** A raw HTTP request whose body stops one byte short: the server holds it in flight until `finish`. */
function heldRequest(base: string, caller: Caller) {
  const url = new URL(base);
  const body = "{}";
  const socket: Socket = connect(Number(url.port), url.hostname);
  let received = "";
  const answered = new Promise<string>((resolve, reject) => {
    socket.on("data", (chunk) => {
      received += chunk.toString("utf8");
    });
    socket.on("end", () => resolve(received));
    socket.on("error", reject);
  });
  socket.write(
    [
      `POST /api/hooks/workflows/${caller.workflowId}/runs HTTP/1.1`,
      `host: ${url.host}`,
      `authorization: Bearer ${caller.key}`,
      "content-type: application/json",
      `content-length: ${body.length}`,
      "connection: close",
      "",
      body.slice(0, -1),
    ].join("\r\n"),
  );
  return {
    finish: async () => {
      socket.write(body.slice(-1));
      const response = await answered;
      const [head = "", payload = ""] = response.split("\r\n\r\n");
      return { status: Number(head.split(" ")[1]), body: JSON.parse(payload) as { data: { run_id: string } } };
    },
  };
}

describe("requests handled at once (STUDIO_MAX_IN_FLIGHT)", () => {
  const MAX = 3;
  let studio: TestStudio;
  let gate: Gate;
  let caller: Caller;
  let owner: Session;

  beforeAll(async () => {
    gate = await startGate();
    gate.open();
    studio = await startTestStudio({ ...NO_USER_LIMITS, STUDIO_MAX_IN_FLIGHT: String(MAX) });
    await studio.container.runs.start(60_000);
    await studio.app.listen({ port: 0, host: "127.0.0.1" });
    owner = await setupOwner(studio);
    caller = await callerOf(studio, owner, gate, "held");
  });
  afterAll(async () => {
    await gate.close();
    await studio.close();
  });

  it("answers one request more 503 SERVER_BUSY with Retry-After at once, and completes the ones it holds", async () => {
    const base = baseOf(studio);
    const held = Array.from({ length: MAX }, () => heldRequest(base, caller));
    await expect.poll(() => studio.app.requestLoad.inFlight).toBe(MAX);

    const refused = await trigger(base, caller);
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({
      code: "SERVER_BUSY",
      details: { reason: "too_many_requests", limit: MAX, retry_after_seconds: 2 },
    });
    expect(refused.retryAfter).toBe("2");
    // A monitor still sees the server.
    expect((await fetch(`${base}/api/health`)).status).toBe(200);

    const answers = await Promise.all(held.map((request) => request.finish()));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202]);
    await studio.container.runs.idle();
    const runs = await runsOf(studio, [caller.workflowId]);
    expect(runs.map((r) => r.status)).toEqual(["ok", "ok", "ok"]);
    expect(new Set(runs.map((r) => r.id))).toEqual(new Set(answers.map((a) => a.body.data.run_id)));

    // Every answered request left the count: the next one is taken.
    await expect.poll(() => studio.app.requestLoad.inFlight).toBe(0);
    expect((await trigger(base, caller)).status).toBe(202);
    await studio.container.runs.idle();
  });

  it("counts every request that has arrived before working on the first, so a burst beyond the bound is refused at once", async () => {
    const base = baseOf(studio);
    const url = new URL(base);
    const BURST = 20;
    let connected = 0;
    const accepted = new Promise<void>((resolve) => {
      const count = () => {
        if (++connected === BURST) {
          studio.app.server.off("connection", count);
          resolve();
        }
      };
      studio.app.server.on("connection", count);
    });
    const sockets = Array.from({ length: BURST }, () => connect(Number(url.port), url.hostname));
    await accepted;
    const answers = sockets.map(
      (socket) =>
        new Promise<number>((resolve, reject) => {
          let received = "";
          socket.on("data", (chunk) => {
            received += chunk.toString("utf8");
          });
          socket.on("end", () => resolve(Number(received.split(" ")[1])));
          socket.on("error", reject);
        }),
    );
    // All the requests reach the server in one go: it reads them all before it answers any.
    for (const socket of sockets) {
      socket.write(
        `POST /api/hooks/workflows/${caller.workflowId}/runs HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${caller.key}\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}`,
      );
    }
    const statuses = await Promise.all(answers);
    expect(statuses.filter((status) => status === 202)).toHaveLength(MAX);
    expect(statuses.filter((status) => status === 503)).toHaveLength(BURST - MAX);
    await studio.container.runs.idle();
    const runs = await runsOf(studio, [caller.workflowId]);
    expect(runs.filter((r) => r.status !== "ok")).toEqual([]);
  });

  it("does not count streams of a run's events, which stay open as long as their reader wants", async () => {
    const base = baseOf(studio);
    const slowGate = await startGate();
    try {
      const slow = await callerOf(studio, owner, slowGate, "slow");
      const started = await trigger(base, slow);
      const runId = started.body.data?.run_id as string;
      await slowGate.arrived(1);
      const streams = await Promise.all(
        Array.from({ length: MAX }, () =>
          fetch(`${base}/api/runs/${runId}/stream`, { headers: { authorization: `Bearer ${slow.key}` } }),
        ),
      );
      expect(streams.map((r) => r.status)).toEqual([200, 200, 200]);
      await expect.poll(() => studio.app.requestLoad.inFlight).toBe(0);
      expect((await trigger(base, caller)).status).toBe(202);

      slowGate.open();
      const bodies = await Promise.all(streams.map((r) => r.text()));
      for (const body of bodies) expect(body).toContain("event: run_finished");
      await studio.container.runs.idle();
    } finally {
      await slowGate.close();
    }
  });

  it("counts a request whose client went away as ended", async () => {
    const base = baseOf(studio);
    const url = new URL(base);
    const sockets = Array.from({ length: MAX }, () => {
      const socket = connect(Number(url.port), url.hostname);
      socket.write(
        `POST /api/hooks/workflows/${caller.workflowId}/runs HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{`,
      );
      return socket;
    });
    await expect.poll(() => studio.app.requestLoad.inFlight).toBe(MAX);
    for (const socket of sockets) socket.destroy();
    await expect.poll(() => studio.app.requestLoad.inFlight).toBe(0);
    expect((await trigger(base, caller)).status).toBe(202);
    await studio.container.runs.idle();
  });
});
