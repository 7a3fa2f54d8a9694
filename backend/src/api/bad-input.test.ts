// Bad input of every kind gets a catalog error code, never a 500, and writes nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Session, sampleDocument, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";

describe("bad input", () => {
  let studio: TestStudio;
  let owner: Session;
  let workflowId: string;

  beforeAll(async () => {
    studio = await startTestStudio({ STUDIO_MAX_BODY_BYTES: "4096" });
    owner = await setupOwner(studio);
    const created = await studio.app.inject({
      method: "POST",
      url: "/api/workflows",
      headers: owner.auth,
      payload: sampleDocument(),
    });
    workflowId = created.json().data.id;
  });
  afterAll(() => studio.close());

  const counts = async () => {
    const db = studio.container.database.db;
    const [workflows, versions, users] = await Promise.all([
      db
        .selectFrom("workflows")
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow(),
      db
        .selectFrom("workflow_versions")
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow(),
      db
        .selectFrom("users")
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow(),
    ]);
    return [Number(workflows.n), Number(versions.n), Number(users.n)];
  };

  const json = { "content-type": "application/json" };
  const cases: {
    name: string;
    method: "POST" | "PUT" | "GET";
    url: () => string;
    body?: string;
    headers?: Record<string, string>;
    status: number;
    code: string;
    path?: string;
  }[] = [
    {
      name: "malformed JSON",
      method: "POST",
      url: () => "/api/workflows",
      body: '{"name": "x",',
      status: 400,
      code: "INVALID_JSON",
    },
    {
      name: "an empty JSON body",
      method: "POST",
      url: () => "/api/workflows",
      body: "",
      status: 400,
      code: "INVALID_JSON",
    },
    {
      name: "a __proto__ key",
      method: "POST",
      url: () => "/api/workflows",
      body: '{"name": "x", "__proto__": {"polluted": true}}',
      status: 400,
      code: "INVALID_JSON",
    },
    {
      name: "a constructor.prototype key",
      method: "POST",
      url: () => "/api/workflows",
      body: '{"name": "x", "constructor": {"prototype": {"polluted": true}}}',
      status: 400,
      code: "INVALID_JSON",
    },
    {
      name: "a wrong type",
      method: "POST",
      url: () => "/api/workflows",
      body: JSON.stringify({ name: 42 }),
      status: 422,
      code: "VALIDATION_FAILED",
      path: "body.name",
    },
    {
      name: "a wrong nested type",
      method: "PUT",
      url: () => `/api/workflows/${workflowId}`,
      body: JSON.stringify({ ...sampleDocument(), nodes: [{ id: "n1", type: "llm", position: { x: "left", y: 0 } }] }),
      status: 422,
      code: "VALIDATION_FAILED",
      path: "body.nodes.0.position.x",
    },
    {
      name: "an unknown node type",
      method: "POST",
      url: () => "/api/workflows",
      body: JSON.stringify({ ...sampleDocument(), nodes: [{ id: "n1", type: "rm -rf", position: { x: 0, y: 0 } }] }),
      status: 422,
      code: "VALIDATION_FAILED",
      path: "body.nodes.0.type",
    },
    {
      name: "a node id LangGraph cannot use",
      method: "POST",
      url: () => "/api/workflows",
      body: JSON.stringify({ ...sampleDocument(), nodes: [{ id: "a:b", type: "llm", position: { x: 0, y: 0 } }] }),
      status: 422,
      code: "VALIDATION_FAILED",
      path: "body.nodes.0.id",
    },
    {
      name: "a reserved state field name",
      method: "POST",
      url: () => "/api/workflows",
      body: JSON.stringify({ name: "x", state: [{ name: "__context__", type: "string" }] }),
      status: 422,
      code: "VALIDATION_FAILED",
      path: "body.state.0.name",
    },
    {
      name: "an unknown field",
      method: "POST",
      url: () => "/api/workflows",
      body: JSON.stringify({ name: "x", owner_id: "someone-else" }),
      status: 422,
      code: "VALIDATION_FAILED",
      path: "body.owner_id",
    },
    {
      name: "an oversize body",
      method: "POST",
      url: () => "/api/workflows",
      body: JSON.stringify({ name: "x", description: "y".repeat(5000) }),
      status: 413,
      code: "PAYLOAD_TOO_LARGE",
    },
    {
      name: "a non-JSON content type",
      method: "POST",
      url: () => "/api/workflows",
      body: "name=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      status: 415,
      code: "UNSUPPORTED_MEDIA_TYPE",
    },
    {
      name: "a bad If-Match header",
      method: "PUT",
      url: () => `/api/workflows/${workflowId}`,
      body: JSON.stringify(sampleDocument()),
      headers: { "if-match": "yesterday" },
      status: 422,
      code: "VALIDATION_FAILED",
      path: "headers.if-match",
    },
    {
      name: "a version number that is not a number",
      method: "GET",
      url: () => `/api/workflows/${workflowId}/versions/latest`,
      status: 422,
      code: "VALIDATION_FAILED",
      path: "params.n",
    },
    {
      name: "a page size out of range",
      method: "GET",
      url: () => "/api/workflows?limit=100000",
      status: 422,
      code: "VALIDATION_FAILED",
      path: "querystring.limit",
    },
    {
      name: "deeply nested node data",
      method: "POST",
      url: () => "/api/workflows",
      body: `{"name": "deep", "nodes": [{"id": "n", "type": "code", "position": {"x": 0, "y": 0}, "data": {"d": ${"[".repeat(1500)}${"]".repeat(1500)}}}]}`,
      status: 422,
      code: "VALIDATION_FAILED",
      path: "body.nodes.0.data",
    },
    {
      name: "deep nesting with a constructor key",
      method: "POST",
      url: () => "/api/workflows",
      body: `{"name": "deep", "description": ${"[".repeat(1500)}{"constructor": 1}${"]".repeat(1500)}}`,
      status: 422,
      code: "VALIDATION_FAILED",
      path: "body.description",
    },
    { name: "a mixed-case path", method: "GET", url: () => "/API/workflows", status: 404, code: "NOT_FOUND" },
    {
      name: "a mixed-case path segment",
      method: "POST",
      url: () => "/api/Workflows",
      body: "{}",
      status: 404,
      code: "NOT_FOUND",
    },
    {
      name: "an unknown id",
      method: "GET",
      url: () => "/api/workflows/not-a-real-id",
      status: 404,
      code: "WORKFLOW_NOT_FOUND",
    },
    {
      name: "an invalid login email",
      method: "POST",
      url: () => "/api/auth/login",
      body: JSON.stringify({ email: "not-an-email", password: "x" }),
      status: 422,
      code: "VALIDATION_FAILED",
      path: "body.email",
    },
  ];

  it.each(cases)("answers $status $code for $name and writes nothing", async (c) => {
    const before = await counts();
    const response = await studio.app.inject({
      method: c.method,
      url: c.url(),
      headers: { ...owner.auth, ...(c.body !== undefined ? json : {}), ...c.headers },
      ...(c.body !== undefined ? { payload: c.body } : {}),
    });
    expect(response.statusCode).toBe(c.status);
    const body = response.json();
    expect(body.error.code).toBe(c.code);
    expect(typeof body.error.message).toBe("string");
    if (c.path) {
      expect(body.error.details.map((d: { path: string }) => d.path)).toContain(c.path);
    }
    expect(await counts()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("keeps the stored workflow intact after all of the above", async () => {
    const current = await studio.app.inject({
      method: "GET",
      url: `/api/workflows/${workflowId}`,
      headers: owner.auth,
    });
    expect(current.json().data).toMatchObject({ version: 1, document: sampleDocument() });
  });
});

describe("very deep JSON", () => {
  it("answers 422, not a crash, for a body nested 200,000 levels deep", async () => {
    const studio = await startTestStudio();
    try {
      const owner = await setupOwner(studio);
      for (const payload of [
        `{"name": "deep", "description": ${"[".repeat(200_000)}${"]".repeat(200_000)}}`,
        `{"name": "deep", "state": [{"name": "a", "type": "any", "default": ${"[".repeat(200_000)}{"constructor": {}}${"]".repeat(200_000)}}]}`,
      ]) {
        const response = await studio.app.inject({
          method: "POST",
          url: "/api/workflows",
          headers: { ...owner.auth, "content-type": "application/json" },
          payload,
        });
        expect([400, 422]).toContain(response.statusCode);
        expect(["INVALID_JSON", "VALIDATION_FAILED"]).toContain(response.json().error.code);
      }
      const list = await studio.app.inject({ method: "GET", url: "/api/workflows", headers: owner.auth });
      expect(list.json().data).toEqual([]);
    } finally {
      await studio.close();
    }
  });
});
