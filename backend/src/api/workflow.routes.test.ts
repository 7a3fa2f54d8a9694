import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ladder, routerMesh } from "../../test/adversarial-workflows.js";
import {
  registerMember,
  type Session,
  sampleDocument,
  setupOwner,
  startTestStudio,
  type TestStudio,
} from "../../test/test-studio.js";
import { VALIDATION_PAUSE_CHANNEL, type ValidationPause } from "../engine/validator/time-slicer.js";

describe("workflows and versions", () => {
  let studio: TestStudio;
  let owner: Session;
  let other: Session;

  beforeAll(async () => {
    studio = await startTestStudio({ STUDIO_ALLOW_SIGNUP: "1" });
    owner = await setupOwner(studio);
    other = await registerMember(studio, "other@example.com");
  });
  afterAll(() => studio.close());

  const create = async (session: Session, document: object = sampleDocument()) => {
    const response = await studio.app.inject({
      method: "POST",
      url: "/api/workflows",
      headers: session.auth,
      payload: document,
    });
    expect(response.statusCode).toBe(201);
    return response.json().data as { id: string; version: number; content_hash: string; document: object };
  };
  const versions = async (id: string) =>
    (await studio.app.inject({ method: "GET", url: `/api/workflows/${id}/versions`, headers: owner.auth })).json()
      .data as {
      number: number;
      restored_from: number | null;
      author_id: string;
      content_hash: string;
    }[];

  it("creates a workflow with version 1 and returns the document with defaults filled in", async () => {
    const created = await create(owner, { name: "Empty" });
    expect(created.version).toBe(1);
    expect(created.document).toEqual({ name: "Empty", state: [], nodes: [], edges: [] });
    expect(created.content_hash).toMatch(/^[0-9a-f]{64}$/);
    const list = await versions(created.id);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ number: 1, author_id: owner.userId, restored_from: null });
  });

  describe("the node limit", () => {
    const chain = (count: number) => ({
      name: `Chain of ${count}`,
      nodes: Array.from({ length: count }, (_, i) => ({
        id: `n${i}`,
        type: "code",
        position: { x: (i % 100) * 260, y: Math.floor(i / 100) * 160 },
        data: { language: "javascript", code: "function main(state) {\n  return {};\n}" },
      })),
      edges: Array.from({ length: count - 1 }, (_, i) => ({ id: `e${i}`, source: `n${i}`, target: `n${i + 1}` })),
    });

    it("stores a 2,000-node workflow", async () => {
      const created = await create(owner, chain(2000));
      expect((created.document as { nodes: unknown[] }).nodes).toHaveLength(2000);
    });

    it("refuses 2,001 nodes with VALIDATION_FAILED on body.nodes and stores nothing", async () => {
      const before = (
        await studio.app.inject({ method: "GET", url: "/api/workflows?limit=100", headers: owner.auth })
      ).json().data.length;
      const response = await studio.app.inject({
        method: "POST",
        url: "/api/workflows",
        headers: owner.auth,
        payload: chain(2001),
      });
      expect(response.statusCode).toBe(422);
      expect(response.json().error.code).toBe("VALIDATION_FAILED");
      expect(response.json().error.details.map((d: { path: string }) => d.path)).toContain("body.nodes");
      const after = (
        await studio.app.inject({ method: "GET", url: "/api/workflows?limit=100", headers: owner.auth })
      ).json().data.length;
      expect(after).toBe(before);
    });
  });

  it("writes a version for each change and none for a save that changes nothing", async () => {
    const created = await create(owner);
    const unchanged = await studio.app.inject({
      method: "PUT",
      url: `/api/workflows/${created.id}`,
      headers: owner.auth,
      // Same content, keys in another order: still no change.
      payload: {
        edges: sampleDocument().edges,
        nodes: sampleDocument().nodes,
        state: sampleDocument().state,
        name: "Support triage",
      },
    });
    expect(unchanged.statusCode).toBe(200);
    expect(unchanged.json().meta.created_version).toBe(false);
    expect(unchanged.json().data.version).toBe(1);

    const changed = { ...sampleDocument(), name: "Support triage v2" };
    const saved = await studio.app.inject({
      method: "PUT",
      url: `/api/workflows/${created.id}`,
      headers: owner.auth,
      payload: changed,
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.json().meta.created_version).toBe(true);
    expect(saved.json().data).toMatchObject({ version: 2, name: "Support triage v2" });
    expect(saved.headers.etag).toBe('"2"');

    const list = await versions(created.id);
    expect(list.map((v) => v.number)).toEqual([2, 1]);
    expect(list[0]?.content_hash).not.toBe(list[1]?.content_hash);

    const v1 = await studio.app.inject({
      method: "GET",
      url: `/api/workflows/${created.id}/versions/1`,
      headers: owner.auth,
    });
    expect(v1.json().data.document.name).toBe("Support triage");
  });

  it("restores an old version by writing it as a new version", async () => {
    const created = await create(owner);
    await studio.app.inject({
      method: "PUT",
      url: `/api/workflows/${created.id}`,
      headers: owner.auth,
      payload: { ...sampleDocument(), nodes: [] },
    });
    const restored = await studio.app.inject({
      method: "POST",
      url: `/api/workflows/${created.id}/versions/1/restore`,
      headers: owner.auth,
    });
    expect(restored.statusCode).toBe(200);
    expect(restored.json().data.version).toBe(3);
    expect(restored.json().data.document).toEqual(created.document);
    const list = await versions(created.id);
    expect(list.map((v) => [v.number, v.restored_from])).toEqual([
      [3, 1],
      [2, null],
      [1, null],
    ]);
    // Versions are immutable: version 2 still holds what was saved as version 2.
    const v2 = await studio.app.inject({
      method: "GET",
      url: `/api/workflows/${created.id}/versions/2`,
      headers: owner.auth,
    });
    expect(v2.json().data.document.nodes).toEqual([]);
  });

  it("refuses a save based on a stale version when If-Match is sent", async () => {
    const created = await create(owner);
    const first = await studio.app.inject({
      method: "PUT",
      url: `/api/workflows/${created.id}`,
      headers: { ...owner.auth, "if-match": '"1"' },
      payload: { ...sampleDocument(), name: "first" },
    });
    expect(first.statusCode).toBe(200);
    const stale = await studio.app.inject({
      method: "PUT",
      url: `/api/workflows/${created.id}`,
      headers: { ...owner.auth, "if-match": '"1"' },
      payload: { ...sampleDocument(), name: "stale" },
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error).toMatchObject({ code: "WORKFLOW_VERSION_CONFLICT", details: { current_version: 2 } });
    const current = await studio.app.inject({
      method: "GET",
      url: `/api/workflows/${created.id}`,
      headers: owner.auth,
    });
    expect(current.json().data.name).toBe("first");
  });

  it("numbers versions without gaps or duplicates when saves race", async () => {
    const created = await create(owner);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        studio.app.inject({
          method: "PUT",
          url: `/api/workflows/${created.id}`,
          headers: owner.auth,
          payload: { ...sampleDocument(), name: `racer ${i}` },
        }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
    const list = await versions(created.id);
    expect(list.map((v) => v.number)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
    const current = (
      await studio.app.inject({ method: "GET", url: `/api/workflows/${created.id}`, headers: owner.auth })
    ).json().data;
    const newest = (
      await studio.app.inject({ method: "GET", url: `/api/workflows/${created.id}/versions/9`, headers: owner.auth })
    ).json().data;
    expect(current.document).toEqual(newest.document);
  });

  it("lists only the caller's workflows, newest first, page by page", async () => {
    const fresh = await startTestStudio();
    try {
      const me = await setupOwner(fresh);
      // A second apart by the clock (only Date is faked): back to back, two could share a
      // millisecond, and ties are ordered by id.
      const start = Date.now();
      vi.useFakeTimers({ toFake: ["Date"] });
      try {
        for (const [i, name] of ["a", "b", "c"].entries()) {
          vi.setSystemTime(start + (i + 1) * 1000);
          const created = await fresh.app.inject({
            method: "POST",
            url: "/api/workflows",
            headers: me.auth,
            payload: { name },
          });
          expect(created.statusCode).toBe(201);
        }
      } finally {
        vi.useRealTimers();
      }
      const page1 = (await fresh.app.inject({ method: "GET", url: "/api/workflows?limit=2", headers: me.auth })).json();
      expect(page1.data.map((w: { name: string }) => w.name)).toEqual(["c", "b"]);
      expect(page1.data[0]).not.toHaveProperty("document");
      expect(page1.pagination).toEqual({ limit: 2, offset: 0, next_offset: 2 });
      const page2 = (
        await fresh.app.inject({ method: "GET", url: "/api/workflows?limit=2&offset=2", headers: me.auth })
      ).json();
      expect(page2.data.map((w: { name: string }) => w.name)).toEqual(["a"]);
      expect(page2.pagination.next_offset).toBeNull();
    } finally {
      await fresh.close();
    }
  });

  it("lists each version with its author's name and email, as the account has them", async () => {
    const registered = await studio.app.inject({
      method: "POST",
      url: "/api/auth/register",
      payload: { email: "mai@example.com", password: "member-password", name: "Trần Thị Mai" },
    });
    expect(registered.statusCode).toBe(201);
    const { token } = registered.json().data as { token: string };
    const mai = { authorization: `Bearer ${token}` };
    const created = await studio.app.inject({
      method: "POST",
      url: "/api/workflows",
      headers: mai,
      payload: sampleDocument(),
    });
    const id = (created.json().data as { id: string }).id;
    const saved = await studio.app.inject({
      method: "PUT",
      url: `/api/workflows/${id}`,
      headers: mai,
      payload: { ...sampleDocument(), name: "Mai's triage" },
    });
    expect(saved.statusCode).toBe(200);
    const listed = await studio.app.inject({ method: "GET", url: `/api/workflows/${id}/versions`, headers: mai });
    expect(
      (listed.json().data as Record<string, unknown>[]).map((v) => [v.number, v.author_name, v.author_email]),
    ).toEqual([
      [2, "Trần Thị Mai", "mai@example.com"],
      [1, "Trần Thị Mai", "mai@example.com"],
    ]);
    const one = await studio.app.inject({ method: "GET", url: `/api/workflows/${id}/versions/1`, headers: mai });
    expect(one.json().data).toMatchObject({ number: 1, author_name: "Trần Thị Mai", author_email: "mai@example.com" });
    // An account without a name: the email alone.
    const owners = await create(owner);
    expect((await versions(owners.id))[0]).toMatchObject({
      author_id: owner.userId,
      author_name: null,
      author_email: "owner@example.com",
    });
  });

  it("deletes a workflow with its versions", async () => {
    const created = await create(owner);
    const deleted = await studio.app.inject({
      method: "DELETE",
      url: `/api/workflows/${created.id}`,
      headers: owner.auth,
    });
    expect(deleted.json()).toEqual({ data: { id: created.id, deleted: true } });
    for (const url of [`/api/workflows/${created.id}`, `/api/workflows/${created.id}/versions/1`]) {
      const gone = await studio.app.inject({ method: "GET", url, headers: owner.auth });
      expect(gone.statusCode).toBe(404);
      expect(gone.json().error.code).toBe("WORKFLOW_NOT_FOUND");
    }
    const rows = await studio.container.database.db
      .selectFrom("workflow_versions")
      .select("number")
      .where("workflow_id", "=", created.id)
      .execute();
    expect(rows).toEqual([]);
  });

  it("answers VERSION_NOT_FOUND for a version that does not exist", async () => {
    const created = await create(owner);
    const response = await studio.app.inject({
      method: "GET",
      url: `/api/workflows/${created.id}/versions/7`,
      headers: owner.auth,
    });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe("VERSION_NOT_FOUND");
  });

  describe("another user's workflow", () => {
    it("answers 404 to every route and changes nothing", async () => {
      const created = await create(owner);
      const id = created.id;
      const attempts = [
        { method: "GET", url: `/api/workflows/${id}` },
        { method: "PUT", url: `/api/workflows/${id}`, payload: { name: "hijacked" } },
        { method: "DELETE", url: `/api/workflows/${id}` },
        { method: "GET", url: `/api/workflows/${id}/versions` },
        { method: "GET", url: `/api/workflows/${id}/versions/1` },
        { method: "POST", url: `/api/workflows/${id}/versions/1/restore` },
      ] as const;
      for (const attempt of attempts) {
        const response = await studio.app.inject({ ...attempt, headers: other.auth });
        expect(response.statusCode, `${attempt.method} ${attempt.url}`).toBe(404);
        expect(response.json().error.code).toBe("WORKFLOW_NOT_FOUND");
      }
      const list = (await studio.app.inject({ method: "GET", url: "/api/workflows", headers: other.auth })).json();
      expect(list.data).toEqual([]);
      const still = (
        await studio.app.inject({ method: "GET", url: `/api/workflows/${id}`, headers: owner.auth })
      ).json().data;
      expect(still).toMatchObject({ version: 1, name: "Support triage" });
    });
  });
});

describe("POST /api/workflows/validate", () => {
  let studio: TestStudio;
  let owner: Session;
  let other: Session;
  beforeAll(async () => {
    studio = await startTestStudio({ STUDIO_ALLOW_SIGNUP: "1", OPENAI_API_KEY: "sk-test" });
    owner = await setupOwner(studio);
    other = await registerMember(studio, "other@example.com");
  });
  afterAll(() => studio.close());

  const validate = (session: Session, payload: object, query = "") =>
    studio.app.inject({ method: "POST", url: `/api/workflows/validate${query}`, headers: session.auth, payload });

  it("accepts a runnable document", async () => {
    const response = await validate(owner, sampleDocument());
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ data: { valid: true } });
  });

  it("answers 422 WORKFLOW_INVALID with one detail per problem", async () => {
    const response = await validate(owner, {
      ...sampleDocument(),
      edges: [
        { id: "e1", source: "start", target: "n1" },
        { id: "e2", source: "n1", target: "ghost" },
        { id: "e2", source: "n1", target: "n1" },
      ],
    });
    expect(response.statusCode).toBe(422);
    const { error } = response.json();
    expect(error.code).toBe("WORKFLOW_INVALID");
    expect(error.details.map((d: { code: string }) => d.code)).toEqual(
      expect.arrayContaining(["DUPLICATE_EDGE_ID", "EDGE_TARGET_UNKNOWN", "LOOP_UNGUARDED"]),
    );
    expect(error.details.find((d: { code: string }) => d.code === "EDGE_TARGET_UNKNOWN")).toMatchObject({
      edge_id: "e2",
      path: "edges.1.target",
    });
  });

  it("answers a 10,000-node document with a clear 422, not a crash or a hang", async () => {
    const nodes = Array.from({ length: 10_000 }, (_, i) => ({
      id: `n${i}`,
      type: "join",
      position: { x: 0, y: 0 },
      data: {},
    }));
    const response = await validate(owner, { name: "huge", nodes, edges: [] });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.code).toBe("WORKFLOW_INVALID");
    expect(response.json().error.details[0]).toMatchObject({ code: "DOCUMENT_SCHEMA", path: "nodes" });
  });

  it("resolves subgraphs among the caller's own saved workflows only", async () => {
    const child = await studio.app.inject({
      method: "POST",
      url: "/api/workflows",
      headers: owner.auth,
      payload: {
        name: "child",
        state: [{ name: "x", type: "string" }],
        nodes: [],
        edges: [{ id: "e", source: "start", target: "end" }],
      },
    });
    const childId = child.json().data.id;
    const parent = {
      name: "parent",
      state: [{ name: "x", type: "string" }],
      nodes: [
        {
          id: "s",
          type: "subgraph",
          position: { x: 0, y: 0 },
          data: { workflow_id: childId, version: 1, input: { x: "{{state.x}}" } },
        },
      ],
      edges: [{ id: "e", source: "start", target: "s" }],
    };
    expect((await validate(owner, parent)).statusCode).toBe(200);
    const foreign = await validate(other, parent);
    expect(foreign.json().error.details.map((d: { code: string }) => d.code)).toEqual(["SUBGRAPH_NOT_FOUND"]);
    const self = await validate(owner, parent, `?workflow_id=${childId}`);
    expect(self.json().error.details.map((d: { code: string }) => d.code)).toEqual(["SUBGRAPH_CYCLE"]);
  });

  it("validates the 961-node ladder of the security finding with the right answer", async () => {
    const fine = await validate(
      owner,
      ladder(30, 32, [
        [0, 0],
        [29, 31],
      ]),
    );
    expect(fine.statusCode).toBe(200);
    expect(fine.json()).toEqual({ data: { valid: true } });
    const clash = await validate(
      owner,
      ladder(30, 32, [
        [3, 10],
        [10, 3],
      ]),
    );
    expect(clash.statusCode).toBe(422);
    expect(clash.json().error.details).toEqual([
      expect.objectContaining({ code: "PARALLEL_WRITE_NEEDS_REDUCER", node_id: "g10_3", path: "state.0.reducer" }),
    ]);
  });

  it("answers /api/health while a long validation is in progress", async () => {
    // The heaviest shape the benchmark knows (a busy Condition mesh beside a long chain). At its
    // first pause the validation is held until a health request sent then has been answered.
    const order: string[] = [];
    let health: Promise<{ statusCode: number }> | undefined;
    const onPause = (message: unknown) => {
      if (health) return;
      health = studio.app.inject({ method: "GET", url: "/api/health" }).then((response) => {
        order.push("health answered");
        return response;
      });
      (message as ValidationPause).hold(health);
    };
    subscribe(VALIDATION_PAUSE_CHANNEL, onPause);
    try {
      const response = await validate(owner, routerMesh(500, 9, 498));
      order.push("validation answered");
      expect(response.statusCode).toBe(200);
    } finally {
      unsubscribe(VALIDATION_PAUSE_CHANNEL, onPause);
    }
    expect(health).toBeDefined();
    expect((await health)?.statusCode).toBe(200);
    expect(order).toEqual(["health answered", "validation answered"]);
  });
});
