import { statSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edge, httpTool, type Receiver, startReceiver } from "../../test/engine-harness.js";
import {
  registerMember,
  runThroughHook,
  type Session,
  setupOwner,
  startTestStudio,
  type TestStudio,
} from "../../test/test-studio.js";

const TOKEN = "crm-token-5d41402abc4b2a76";
const OPENAI_KEY = "sk-proj-user-abcdef0123456789";

describe("stored credentials", () => {
  let studio: TestStudio;
  let owner: Session;
  let other: Session;
  let receiver: Receiver;
  const logs: string[] = [];

  beforeAll(async () => {
    // Echoes request headers back, as a careless or hostile service would.
    receiver = await startReceiver((request) => ({ json: { seen: request.headers } }));
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logs.push(String(chunk));
        done();
      },
    });
    studio = await startTestStudio(
      { STUDIO_ALLOW_SIGNUP: "1", STUDIO_EGRESS_ALLOW: "127.0.0.1", STUDIO_LOG_LEVEL: "trace" },
      { logTo: sink },
    );
    await studio.container.runs.start(60_000);
    owner = await setupOwner(studio);
    other = await registerMember(studio, "other@example.com");
  });
  afterAll(async () => {
    await studio.close();
    await receiver.close();
  });

  const create = (session: Session, payload: object) =>
    studio.app.inject({ method: "POST", url: "/api/credentials", headers: session.auth, payload });
  const createOk = async (session: Session, payload: object) => {
    const response = await create(session, payload);
    expect(response.statusCode, response.body).toBe(201);
    return response.json().data as { id: string; name: string; type: string; fields: string[] };
  };

  it("stores a credential encrypted, and never returns its secret, not even at creation", async () => {
    const response = await create(owner, { name: "OpenAI (mine)", type: "openai", data: { api_key: OPENAI_KEY } });
    expect(response.statusCode).toBe(201);
    expect(response.body).not.toContain(OPENAI_KEY);
    const created = response.json().data;
    expect(created).toMatchObject({ name: "OpenAI (mine)", type: "openai", fields: ["api_key"], last_used_at: null });

    const list = await studio.app.inject({ method: "GET", url: "/api/credentials", headers: owner.auth });
    expect(list.json().data.map((c: { id: string }) => c.id)).toContain(created.id);
    const one = await studio.app.inject({ method: "GET", url: `/api/credentials/${created.id}`, headers: owner.auth });
    for (const body of [list.body, one.body]) expect(body).not.toContain(OPENAI_KEY);

    const row = await studio.container.database.db
      .selectFrom("credentials")
      .selectAll()
      .where("id", "=", created.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(OPENAI_KEY);
    expect(row.secret).toMatch(/^v1\.[0-9a-f]{12}\./);
    // The generated key file is private to the server's user.
    expect(statSync(join(studio.config.dataDir, "encryption-key")).mode & 0o777).toBe(0o600);
  });

  it("renames a credential and replaces its secret without showing either secret", async () => {
    const created = await createOk(owner, { name: "CRM", type: "http_bearer", data: { token: "first-token-1111" } });
    const renamed = await studio.app.inject({
      method: "PATCH",
      url: `/api/credentials/${created.id}`,
      headers: owner.auth,
      payload: { name: "CRM (prod)", data: { token: "second-token-2222" } },
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().data).toMatchObject({ name: "CRM (prod)", type: "http_bearer", fields: ["token"] });
    expect(renamed.body).not.toContain("second-token-2222");
  });

  it("answers another user as if the credential did not exist", async () => {
    const mine = await createOk(owner, { name: "private", type: "http_bearer", data: { token: "owner-only-token" } });
    for (const [method, payload] of [
      ["GET", undefined],
      ["PATCH", { name: "stolen" }],
      ["DELETE", undefined],
    ] as const) {
      const response = await studio.app.inject({
        method,
        url: `/api/credentials/${mine.id}`,
        headers: other.auth,
        ...(payload ? { payload } : {}),
      });
      expect(response.statusCode, method).toBe(404);
      expect(response.json().error.code).toBe("CREDENTIAL_NOT_FOUND");
    }
    const list = await studio.app.inject({ method: "GET", url: "/api/credentials", headers: other.auth });
    expect(list.json().data).toEqual([]);
  });

  it("reports another user's credential in a workflow like a missing one", async () => {
    const mine = await createOk(owner, {
      name: "for-validation",
      type: "http_bearer",
      data: { token: "tok-validate" },
    });
    const document = {
      name: "borrow",
      state: [{ name: "r", type: "any" }],
      nodes: [httpTool("t", `${receiver.url}/x`, "r", { credential_id: mine.id })],
      edges: [edge("start", "t")],
    };
    const validate = (session: Session) =>
      studio.app.inject({ method: "POST", url: "/api/workflows/validate", headers: session.auth, payload: document });
    expect((await validate(owner)).json().data).toEqual({ valid: true });
    const refused = await validate(other);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error.details).toEqual([
      expect.objectContaining({ code: "CREDENTIAL_NOT_FOUND", node_id: "t" }),
    ]);
  });

  it("needs a signed-in person to create, change or delete credentials", async () => {
    const key = (
      await studio.app.inject({ method: "POST", url: "/api/api-keys", headers: owner.auth, payload: { name: "k" } })
    ).json().data.key;
    const withKey = { authorization: `Bearer ${key}` };
    const response = await studio.app.inject({
      method: "POST",
      url: "/api/credentials",
      headers: withKey,
      payload: { name: "by key", type: "http_bearer", data: { token: "key-made-token" } },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe("AUTH_SESSION_REQUIRED");
  });

  it.each([
    ["an unknown type", { name: "x", type: "ftp", data: {} }, "body.type"],
    ["a missing secret", { name: "x", type: "openai", data: {} }, "body.data.api_key"],
    ["a secret too short to scrub", { name: "x", type: "http_bearer", data: { token: "abc" } }, "body.data.token"],
    ["an unknown field", { name: "x", type: "openai", data: { api_key: "sk-long-enough", extra: 1 } }, "body.data"],
    [
      "a bad header name",
      { name: "x", type: "http_header", data: { name: "X Bad", value: "v-long" } },
      "body.data.name",
    ],
    ["a bad SMTP port", { name: "x", type: "smtp", data: { host: "mail.example.com", port: 0 } }, "body.data.port"],
    ["no name", { type: "openai", data: { api_key: "sk-long-enough" } }, "body.name"],
  ])("refuses %s with VALIDATION_FAILED naming the field", async (_case, payload, path) => {
    const response = await create(owner, payload);
    expect(response.statusCode).toBe(422);
    expect(response.json().error.code).toBe("VALIDATION_FAILED");
    expect(response.json().error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it("refuses a second credential with the same name, and an empty or mistyped change", async () => {
    await createOk(owner, { name: "twice", type: "http_bearer", data: { token: "token-one-1" } });
    const again = await create(owner, { name: "twice", type: "http_bearer", data: { token: "token-two-2" } });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe("CREDENTIAL_NAME_TAKEN");
    const created = await createOk(owner, { name: "change me", type: "http_bearer", data: { token: "token-three" } });
    const patch = (payload: object) =>
      studio.app.inject({ method: "PATCH", url: `/api/credentials/${created.id}`, headers: owner.auth, payload });
    expect((await patch({})).statusCode).toBe(422);
    const wrongShape = await patch({ data: { api_key: "sk-not-a-bearer" } });
    expect(wrongShape.statusCode).toBe(422);
    expect(wrongShape.json().error.details.map((d: { path: string }) => d.path)).toContain("body.data.token");
    const clash = await patch({ name: "twice" });
    expect(clash.statusCode).toBe(409);
  });

  it("runs a workflow with the credential and keeps its secret out of the run, its events and the logs", async () => {
    const credential = await createOk(owner, { name: "crm-run", type: "http_bearer", data: { token: TOKEN } });
    const document = {
      name: "crm",
      state: [{ name: "r", type: "any" }],
      nodes: [httpTool("t", `${receiver.url}/crm`, "r", { credential_id: credential.id })],
      edges: [edge("start", "t")],
    };
    const { runId } = await runThroughHook(studio, owner, document);

    expect(receiver.requests.at(-1)?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const run = await studio.app.inject({ method: "GET", url: `/api/runs/${runId}`, headers: owner.auth });
    expect(run.json().data.status).toBe("ok");
    expect(run.json().data.state.r.seen.authorization).toBe("Bearer [redacted]");
    const events = await studio.app.inject({ method: "GET", url: `/api/runs/${runId}/events`, headers: owner.auth });
    const checkpoints = await studio.container.database.db.selectFrom("checkpoints").selectAll().execute();
    const writes = await studio.container.database.db.selectFrom("checkpoint_writes").selectAll().execute();
    for (const written of [run.body, events.body, JSON.stringify(checkpoints), JSON.stringify(writes), logs.join("")]) {
      expect(written).not.toContain(TOKEN);
    }
    const used = await studio.app.inject({
      method: "GET",
      url: `/api/credentials/${credential.id}`,
      headers: owner.auth,
    });
    expect(used.json().data.last_used_at).not.toBeNull();
  });

  it("fails a run whose stored secret was tampered with, without running its nodes", async () => {
    const a = await createOk(owner, { name: "swap-a", type: "http_bearer", data: { token: "token-of-a-0001" } });
    const b = await createOk(owner, { name: "swap-b", type: "http_bearer", data: { token: "token-of-b-0002" } });
    const db = studio.container.database.db;
    const sealedB = (
      await db.selectFrom("credentials").select("secret").where("id", "=", b.id).executeTakeFirstOrThrow()
    ).secret;
    // A sealed value is bound to its row: copying B's secret into A must not open as A.
    await db.updateTable("credentials").set({ secret: sealedB }).where("id", "=", a.id).execute();
    const document = {
      name: "tampered",
      state: [{ name: "r", type: "any" }],
      nodes: [httpTool("t", `${receiver.url}/tampered`, "r", { credential_id: a.id })],
      edges: [edge("start", "t")],
    };
    const before = receiver.requests.length;
    const run = await studio.container.runs.createForDocument(
      { userId: owner.userId, role: "owner", via: "session" },
      document,
      {},
      "api",
    );
    await studio.container.runs.executeNow(run.id);
    const ended = await studio.container.runs.get({ userId: owner.userId, role: "owner", via: "session" }, run.id);
    expect(ended.status).toBe("error");
    expect(ended.error).toMatchObject({ code: "CREDENTIAL_UNREADABLE" });
    expect(receiver.requests.length).toBe(before);
  });
});
