// Capacity is shared fairly: per-user limits on runs queued and started per minute (429 with
// Retry-After), a per-address limit on the hook route, and a queue that takes turns between users.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { edge, type Gate, gatedWorkflow, startGate } from "../../test/engine-harness.js";
import { registerMember, type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";

const quick = { name: "quick", state: [{ name: "n", type: "number" }], nodes: [], edges: [edge("start", "end")] };

/** A signed-in user with an API key, saving workflows and calling the hook route. */
async function userOf(studio: TestStudio, session: Session) {
  const created = await studio.app.inject({
    method: "POST",
    url: "/api/api-keys",
    headers: session.auth,
    payload: { name: "hooks" },
  });
  const key = { authorization: `Bearer ${created.json().data.key}` };
  return {
    session,
    save: async (document: object) =>
      (
        await studio.app.inject({ method: "POST", url: "/api/workflows", headers: session.auth, payload: document })
      ).json().data.id as string,
    hook: (workflowId: string, payload: object = {}, headers: Record<string, string> = {}) =>
      studio.app.inject({
        method: "POST",
        url: `/api/hooks/workflows/${workflowId}/runs`,
        headers: { ...key, ...headers },
        payload,
      }),
  };
}

const countRuns = async (studio: TestStudio, ownerId: string, status?: string) => {
  let query = studio.container.database.db.selectFrom("runs").select("id").where("owner_id", "=", ownerId);
  if (status) query = query.where("status", "=", status);
  return (await query.execute()).length;
};

/** Opens /ws/run of a listening studio signed in with `token`; resolves with the first message matching `match`. */
async function socketRequest(studio: TestStudio, token: string, message: object, match: (m: Message) => boolean) {
  const { port } = studio.app.server.address() as { port: number };
  const socket = new WebSocket(`ws://127.0.0.1:${port}/ws/run?token=${token}`);
  const messages: Message[] = [];
  try {
    return await new Promise<Message>((resolve, reject) => {
      socket.on("error", reject);
      socket.on("close", (code) => reject(new Error(`closed with ${code}: ${JSON.stringify(messages)}`)));
      socket.on("message", (raw) => {
        const parsed = JSON.parse(String(raw)) as Message;
        messages.push(parsed);
        if (parsed.type === "ready") socket.send(JSON.stringify(message));
        else if (match(parsed)) resolve(parsed);
      });
    });
  } finally {
    socket.removeAllListeners("close");
    socket.close();
  }
}

interface Message {
  type: string;
  run_id?: string;
  error?: { code: string; details: { retry_after_seconds?: number } };
}

describe("per-user trigger rate (STUDIO_USER_RUN_RATE)", () => {
  let studio: TestStudio;
  let owner: Session;
  let other: Session;

  beforeAll(async () => {
    // The queue is not started: runs stay queued, and only the admission is under test.
    studio = await startTestStudio({ STUDIO_ALLOW_SIGNUP: "1", STUDIO_USER_RUN_RATE: "3" });
    await studio.app.listen({ port: 0, host: "127.0.0.1" });
    owner = await setupOwner(studio);
    other = await registerMember(studio, "other@example.com");
  });
  afterAll(() => studio.close());

  it("answers 429 RATE_LIMITED with Retry-After once a user has started the limit this minute, from any trigger", async () => {
    const alice = await userOf(studio, owner);
    const workflowId = await alice.save(quick);
    const first = await alice.hook(workflowId, {}, { "idempotency-key": "order-1" });
    expect(first.statusCode).toBe(202);
    expect((await alice.hook(workflowId)).statusCode).toBe(202);
    expect((await alice.hook(workflowId)).statusCode).toBe(202);

    const refused = await alice.hook(workflowId);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe("RATE_LIMITED");
    const wait = refused.json().error.details.retry_after_seconds;
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(refused.headers["retry-after"]).toBe(String(wait));
    expect(await countRuns(studio, owner.userId)).toBe(3);

    // A retry of an accepted trigger still gets its run back.
    const retried = await alice.hook(workflowId, {}, { "idempotency-key": "order-1" });
    expect(retried.statusCode).toBe(202);
    expect(retried.json().data.run_id).toBe(first.json().data.run_id);

    // The editor's socket draws on the same allowance.
    const socketRefusal = await socketRequest(
      studio,
      owner.token,
      { type: "start", workflow_id: workflowId },
      (m) => m.type === "error" || m.type === "started",
    );
    expect(socketRefusal.error?.code).toBe("RATE_LIMITED");
    expect(socketRefusal.error?.details.retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect(await countRuns(studio, owner.userId)).toBe(3);

    // So does running one node alone: it is refused before the node is called.
    const nodeRun = await studio.app.inject({
      method: "POST",
      url: "/api/node-runs",
      headers: owner.auth,
      payload: { document: gatedWorkflow("http://127.0.0.1:9", "never"), node_id: "wait" },
    });
    expect(nodeRun.statusCode).toBe(429);
    expect(nodeRun.json().error.code).toBe("RATE_LIMITED");

    // Another user has an allowance of their own.
    const bob = await userOf(studio, other);
    expect((await bob.hook(await bob.save(quick))).statusCode).toBe(202);
  });
});

describe("per-user queued runs (STUDIO_USER_MAX_QUEUED)", () => {
  let studio: TestStudio;
  let owner: Session;
  let other: Session;

  beforeAll(async () => {
    // The queue is not started: every accepted run stays queued and counts against the limit.
    studio = await startTestStudio({ STUDIO_ALLOW_SIGNUP: "1", STUDIO_USER_MAX_QUEUED: "2" });
    await studio.app.listen({ port: 0, host: "127.0.0.1" });
    owner = await setupOwner(studio);
    other = await registerMember(studio, "other@example.com");
  });
  afterAll(() => studio.close());

  it("answers 429 RUN_LIMIT_REACHED with Retry-After while a user has the limit queued or running", async () => {
    const alice = await userOf(studio, owner);
    const workflowId = await alice.save(quick);
    const accepted = [await alice.hook(workflowId), await alice.hook(workflowId)];
    expect(accepted.map((r) => r.statusCode)).toEqual([202, 202]);

    const refused = await alice.hook(workflowId);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toMatchObject({
      code: "RUN_LIMIT_REACHED",
      details: { limit: 2, retry_after_seconds: 10 },
    });
    expect(refused.headers["retry-after"]).toBe("10");

    const fromEditor = await socketRequest(
      studio,
      owner.token,
      { type: "start_document", document: quick },
      (m) => m.type === "error" || m.type === "started",
    );
    expect(fromEditor.error?.code).toBe("RUN_LIMIT_REACHED");
    expect(await countRuns(studio, owner.userId)).toBe(2);

    // A run that ends frees its place.
    const cancelled = await studio.app.inject({
      method: "POST",
      url: `/api/runs/${accepted[0]?.json().data.run_id}/cancel`,
      headers: owner.auth,
    });
    expect(cancelled.statusCode).toBe(200);
    expect((await alice.hook(workflowId)).statusCode).toBe(202);
  });

  it("lets exactly the limit through when one user's triggers race", async () => {
    const bob = await userOf(studio, other);
    const workflowId = await bob.save(quick);
    const responses = await Promise.all(Array.from({ length: 10 }, () => bob.hook(workflowId)));
    const codes = responses.map((r) => r.statusCode).sort();
    expect(codes).toEqual([202, 202, ...Array(8).fill(429)]);
    expect(await countRuns(studio, other.userId)).toBe(2);
  });

  it("does not limit the command line, which runs its own run in its own process", async () => {
    const actor = { userId: owner.userId, role: "owner", via: "session" } as const;
    expect(await countRuns(studio, owner.userId, "queued")).toBe(2);
    await expect(studio.container.runs.createForDocument(actor, quick, {}, "editor")).rejects.toMatchObject({
      code: "RUN_LIMIT_REACHED",
    });
    const run = await studio.container.runs.createForDocument(actor, quick, { input: { n: 1 } }, "cli");
    expect(run).toMatchObject({ status: "queued", trigger: "cli" });
  });
});

describe("hook route rate limit per client address (STUDIO_HOOK_RATE_LIMIT)", () => {
  let studio: TestStudio;

  beforeAll(async () => {
    studio = await startTestStudio({ STUDIO_HOOK_RATE_LIMIT: "2", STUDIO_AUTH_RATE_LIMIT: "1" });
  });
  afterAll(() => studio.close());

  it("answers 429 with Retry-After before looking at the credential", async () => {
    const call = () =>
      studio.app.inject({
        method: "POST",
        url: "/api/hooks/workflows/any/runs",
        headers: { authorization: "Bearer ssk_not-a-key" },
        payload: {},
      });
    expect((await call()).statusCode).toBe(401);
    expect((await call()).statusCode).toBe(401);
    const limited = await call();
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe("RATE_LIMITED");
    const wait = limited.json().error.details.retry_after_seconds;
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(limited.headers["retry-after"]).toBe(String(wait));
  });

  it("puts Retry-After on the auth routes' 429 too", async () => {
    const login = () =>
      studio.app.inject({
        method: "POST",
        url: "/api/auth/login",
        payload: { email: "someone@example.com", password: "some-password" },
      });
    expect((await login()).statusCode).toBe(401);
    const limited = await login();
    expect(limited.statusCode).toBe(429);
    expect(limited.headers["retry-after"]).toBe(String(limited.json().error.details.retry_after_seconds));
  });
});

describe("fair queue across users", () => {
  let studio: TestStudio;
  let gate: Gate;
  let owner: Session;
  let other: Session;

  beforeAll(async () => {
    gate = await startGate();
    studio = await startTestStudio({
      STUDIO_ALLOW_SIGNUP: "1",
      STUDIO_EGRESS_ALLOW: "127.0.0.1",
      STUDIO_WORKER_CONCURRENCY: "2",
    });
    await studio.container.runs.start(60_000);
    owner = await setupOwner(studio);
    other = await registerMember(studio, "other@example.com");
  });
  afterAll(async () => {
    await gate.close();
    await studio.close();
  });

  it("starts another user's run before the first user's backlog", async () => {
    const alice = await userOf(studio, owner);
    const bob = await userOf(studio, other);
    const aliceFlow = await alice.save(gatedWorkflow(gate.url, "alice"));
    const bobFlow = await bob.save(gatedWorkflow(gate.url, "bob"));
    for (let i = 0; i < 4; i++) expect((await alice.hook(aliceFlow)).statusCode).toBe(202);
    await gate.arrived(2);
    expect(gate.arrivals).toEqual(["/alice", "/alice"]);

    expect((await bob.hook(bobFlow)).statusCode).toBe(202);
    expect(await countRuns(studio, other.userId, "queued")).toBe(1);
    // One of Alice's runs ends: the free worker takes Bob's run, not Alice's third.
    gate.release("/alice");
    await gate.arrived(3);
    expect(gate.arrivals[2]).toBe("/bob");
    expect(await countRuns(studio, owner.userId, "queued")).toBe(2);

    gate.open();
    await studio.container.runs.idle();
    expect(await countRuns(studio, owner.userId, "ok")).toBe(4);
    expect(await countRuns(studio, other.userId, "ok")).toBe(1);
    expect(gate.arrivals.filter((path) => path === "/alice")).toHaveLength(4);
  });
});

describe("one-node runs count against the user's limits", () => {
  let studio: TestStudio;
  let owner: Session;
  let other: Session;
  let gate: Gate;

  beforeAll(async () => {
    gate = await startGate();
    studio = await startTestStudio({
      STUDIO_ALLOW_SIGNUP: "1",
      STUDIO_USER_MAX_RUNS: "1",
      STUDIO_USER_RUN_RATE: "3",
      STUDIO_EGRESS_ALLOW: "127.0.0.1",
    });
    owner = await setupOwner(studio);
    other = await registerMember(studio, "other@example.com");
  });
  afterAll(async () => {
    gate.open();
    await studio.close();
    await gate.close();
  });

  const runNode = (session: Session, name: string) =>
    studio.app.inject({
      method: "POST",
      url: "/api/node-runs",
      headers: session.auth,
      payload: { document: gatedWorkflow(gate.url, name), node_id: "wait" },
    });

  it("runs at most STUDIO_USER_MAX_RUNS of one user's at once, and each draws on the start allowance", async () => {
    // The first holds at the gate; a second of the same user is refused at once, another user's runs.
    const first = runNode(owner, "first");
    await gate.arrived(1);
    const second = await runNode(owner, "second");
    expect(second.statusCode).toBe(429);
    expect(second.json().error).toMatchObject({
      code: "RUN_LIMIT_REACHED",
      details: { reason: "node_runs", limit: 1 },
    });
    expect(second.headers["retry-after"]).toBe("10");
    const others = runNode(other, "other");
    await gate.arrived(2);
    expect(gate.arrivals).toEqual(["/first", "/other"]);
    gate.releaseAll();
    expect((await first).json().data).toMatchObject({ status: "ok", output: { reply: { path: "/first" } } });
    expect((await others).statusCode).toBe(200);
    // Once it ended, the next one runs; the refused one did not count against the allowance.
    gate.open();
    expect((await runNode(owner, "third")).statusCode).toBe(200);
    expect((await runNode(owner, "fourth")).statusCode).toBe(200);
    const limited = await runNode(owner, "fifth");
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe("RATE_LIMITED");
    expect(gate.arrivals.filter((path) => path === "/fifth")).toEqual([]);
  });
});
