import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalWorkflow, edge, type Gate, gatedWorkflow, startGate } from "../../test/engine-harness.js";
import { SocketClient as Client } from "../../test/socket-client.js";
import { registerMember, type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";

const approval = approvalWorkflow();

describe("editor socket /ws/run", () => {
  let studio: TestStudio;
  let owner: Session;
  let other: Session;
  let base: string;
  let gate: Gate;
  const clients: Client[] = [];

  beforeAll(async () => {
    gate = await startGate();
    studio = await startTestStudio({ STUDIO_ALLOW_SIGNUP: "1", STUDIO_EGRESS_ALLOW: "127.0.0.1" });
    await studio.container.runs.start(60_000);
    owner = await setupOwner(studio);
    other = await registerMember(studio, "other@example.com");
    await studio.app.listen({ port: 0, host: "127.0.0.1" });
    base = `ws://127.0.0.1:${(studio.app.server.address() as { port: number }).port}/ws/run`;
  });
  afterAll(async () => {
    for (const client of clients) client.socket.close();
    await gate.close();
    await studio.close();
  });

  const connect = async (query = "") => {
    const client = new Client(`${base}${query}`);
    clients.push(client);
    await client.opened();
    return client;
  };

  it("runs an unsaved document, streams its events, and resumes it on the same socket", async () => {
    const client = await connect();
    client.send({ type: "start_document", document: approval });
    expect((await client.waitFor((m) => m.type === "error")).error?.code).toBe("AUTH_REQUIRED");
    client.send({ type: "auth", token: owner.token });
    await client.waitFor((m) => m.type === "ready");
    client.send({ type: "start_document", document: approval, input: {} });
    const started = await client.waitFor((m) => m.type === "started");
    const waiting = await client.waitFor((m) => m.event?.type === "run_waiting");
    expect(waiting.event?.data).toMatchObject({ node_id: "ask", message: "OK?" });
    // The event streams as it happens; the run's row says `waiting` once the turn has ended.
    await studio.container.runs.idle();
    client.send({ type: "resume", run_id: started.run_id as string, input: { ok: true } });
    await client.waitFor((m) => m.event?.type === "run_finished");
    await studio.container.runs.idle();
    const seqs = client.messages.filter((m) => m.type === "event").map((m) => m.event?.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => (a as number) - (b as number)));
    expect(new Set(seqs).size).toBe(seqs.length);
    const run = (
      await studio.app.inject({ method: "GET", url: `/api/runs/${started.run_id}`, headers: owner.auth })
    ).json().data;
    expect(run).toMatchObject({ status: "ok", trigger: "editor", workflow_id: null, state: { answer: { ok: true } } });
  });

  it("refuses another user's run and bad messages with catalog codes", async () => {
    const mine = await connect(`?token=${owner.token}`);
    await mine.waitFor((m) => m.type === "ready");
    mine.send({ type: "start_document", document: approval });
    const started = await mine.waitFor((m) => m.type === "started");

    const theirs = await connect(`?token=${other.token}`);
    await theirs.waitFor((m) => m.type === "ready");
    theirs.send({ type: "resume", run_id: started.run_id as string, input: { ok: true } });
    expect((await theirs.waitFor((m) => m.type === "error")).error?.code).toBe("RUN_NOT_FOUND");
    theirs.send("{not json" as unknown as object);
    await theirs.waitFor((m) => m.error?.code === "INVALID_JSON");
    theirs.send({ type: "launch" });
    await theirs.waitFor((m) => m.error?.code === "VALIDATION_FAILED");
    theirs.send({ type: "start_document", document: { name: "bad", edges: [edge("start", "ghost")] } });
    await theirs.waitFor((m) => m.error?.code === "WORKFLOW_INVALID");
  });

  it("closes a socket whose token is not valid", async () => {
    const client = await connect("?token=not-a-token");
    await client.waitFor((m) => m.error?.code === "AUTH_INVALID_TOKEN");
    expect(await client.closed).toBe(4401);
  });

  const save = async (document: object, session: Session) =>
    (
      await studio.app.inject({ method: "POST", url: "/api/workflows", headers: session.auth, payload: document })
    ).json().data.id as string;
  const createKey = async (session: Session) =>
    (
      await studio.app.inject({ method: "POST", url: "/api/api-keys", headers: session.auth, payload: { name: "ws" } })
    ).json().data as { id: string; key: string };
  const runsOf = (workflowId: string) =>
    studio.container.database.db
      .selectFrom("runs")
      .select(["id", "status", "trigger"])
      .where("workflow_id", "=", workflowId)
      .execute();

  it("queues editor runs like any other: one user's starts never run past STUDIO_USER_MAX_RUNS at once", async () => {
    // Four workers (the default), two of them at most for one user (the default).
    const mineFlow = await save(gatedWorkflow(gate.url, "mine"), owner);
    const theirFlow = await save(gatedWorkflow(gate.url, "theirs"), other);
    const mine = await connect(`?token=${owner.token}`);
    await mine.waitFor((m) => m.type === "ready");
    for (let i = 0; i < 8; i++) mine.send({ type: "start", workflow_id: mineFlow });
    await mine.waitFor(() => mine.messages.filter((m) => m.type === "started").length === 8);
    await gate.arrived(2);

    // Another user's run takes a free worker at once; the first user's six others stay queued.
    const theirs = await connect(`?token=${other.token}`);
    await theirs.waitFor((m) => m.type === "ready");
    theirs.send({ type: "start", workflow_id: theirFlow });
    await gate.arrived(3);
    expect(gate.arrivals.slice(0, 3).sort()).toEqual(["/mine", "/mine", "/theirs"]);
    const statuses = (await runsOf(mineFlow)).map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(6).fill("queued"), "running", "running"]);
    expect((await runsOf(mineFlow)).every((r) => r.trigger === "editor")).toBe(true);

    // The socket still streams the events of its queued runs as they go.
    gate.open();
    await mine.waitFor(() => mine.messages.filter((m) => m.event?.type === "run_finished").length === 8);
    await studio.container.runs.idle();
    expect((await runsOf(mineFlow)).map((r) => r.status)).toEqual(Array(8).fill("ok"));
  });

  it("closes a socket signed in with an API key as soon as the key is revoked", async () => {
    const key = await createKey(owner);
    const client = await connect(`?token=${key.key}`);
    await client.waitFor((m) => m.type === "ready");
    const revoked = await studio.app.inject({ method: "DELETE", url: `/api/api-keys/${key.id}`, headers: owner.auth });
    expect(revoked.statusCode).toBe(200);
    expect(await client.closed).toBe(4401);
    expect(client.messages.at(-1)?.error?.code).toBe("AUTH_INVALID_TOKEN");
  });

  it("refuses the next message once the key was revoked elsewhere, and closes the socket", async () => {
    const key = await createKey(owner);
    const workflowId = await save(approval, owner);
    const client = await connect();
    client.send({ type: "auth", token: key.key });
    await client.waitFor((m) => m.type === "ready");
    // As another server process would: straight in the database, so no notice reaches this one.
    await studio.container.database.db
      .updateTable("api_keys")
      .set({ revoked_at: new Date().toISOString() })
      .where("id", "=", key.id)
      .execute();
    client.send({ type: "start", workflow_id: workflowId });
    expect(await client.closed).toBe(4401);
    expect(client.messages.filter((m) => m.type === "error").map((m) => m.error?.code)).toEqual(["AUTH_INVALID_TOKEN"]);
    expect(client.messages.some((m) => m.type === "started")).toBe(false);
    expect(await runsOf(workflowId)).toEqual([]);
  });

  it("refuses the next message of a session whose user no longer exists, and closes the socket", async () => {
    const gone = await registerMember(studio, "gone@example.com");
    const client = await connect(`?token=${gone.token}`);
    await client.waitFor((m) => m.type === "ready");
    await studio.container.database.db.deleteFrom("users").where("id", "=", gone.userId).execute();
    client.send({ type: "start_document", document: approval });
    expect(await client.closed).toBe(4401);
    expect(client.messages.find((m) => m.type === "error")?.error?.code).toBe("AUTH_INVALID_TOKEN");
    const runs = await studio.container.database.db
      .selectFrom("runs")
      .select("id")
      .where("owner_id", "=", gone.userId)
      .execute();
    expect(runs).toEqual([]);
  });

  it("closes the socket when its session token expires", async () => {
    // A token with three seconds at most to live, signed as the server signs its own.
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(owner.userId)
      .setIssuer("superstep")
      .setAudience("superstep")
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + 3)
      .sign(new TextEncoder().encode(studio.jwtSecret()));
    const client = await connect(`?token=${token}`);
    await client.waitFor((m) => m.type === "ready");
    expect(await client.closed).toBe(4401);
    expect(client.messages.at(-1)?.error?.code).toBe("AUTH_TOKEN_EXPIRED");
    // The same token no longer opens a socket.
    const again = await connect(`?token=${token}`);
    expect(await again.closed).toBe(4401);
    expect(again.messages.at(-1)?.error?.code).toBe("AUTH_TOKEN_EXPIRED");
  });
});
