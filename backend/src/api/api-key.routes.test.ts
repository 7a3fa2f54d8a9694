import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerMember, type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";

describe("API keys", () => {
  let studio: TestStudio;
  let owner: Session;
  let other: Session;

  beforeAll(async () => {
    studio = await startTestStudio({ STUDIO_ALLOW_SIGNUP: "1" });
    owner = await setupOwner(studio);
    other = await registerMember(studio, "other@example.com");
  });
  afterAll(() => studio.close());

  const createKey = async (session: Session, name = "ci") => {
    const response = await studio.app.inject({
      method: "POST",
      url: "/api/api-keys",
      headers: session.auth,
      payload: { name },
    });
    expect(response.statusCode).toBe(201);
    return response.json().data as { id: string; key: string; prefix: string };
  };

  it("shows the key once at creation, stores only its hash, and lists without it", async () => {
    const created = await createKey(owner);
    expect(created.key).toMatch(/^ssk_[A-Za-z0-9_-]{43}$/);
    expect(created.key.startsWith(created.prefix)).toBe(true);

    const list = (await studio.app.inject({ method: "GET", url: "/api/api-keys", headers: owner.auth })).json();
    const listed = list.data.find((k: { id: string }) => k.id === created.id);
    expect(listed).toMatchObject({ name: "ci", prefix: created.prefix, revoked_at: null });
    expect(listed).not.toHaveProperty("key");
    expect(JSON.stringify(list)).not.toContain(created.key);

    const row = await studio.container.database.db
      .selectFrom("api_keys")
      .selectAll()
      .where("id", "=", created.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(created.key);
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("authenticates API calls with the key until it is revoked", async () => {
    const created = await createKey(owner, "script");
    const withKey = { authorization: `Bearer ${created.key}` };
    const me = await studio.app.inject({ method: "GET", url: "/api/auth/me", headers: withKey });
    expect(me.json().data.id).toBe(owner.userId);
    const made = await studio.app.inject({
      method: "POST",
      url: "/api/workflows",
      headers: withKey,
      payload: { name: "by key" },
    });
    expect(made.statusCode).toBe(201);

    const listed = (await studio.app.inject({ method: "GET", url: "/api/api-keys", headers: owner.auth })).json().data;
    expect(listed.find((k: { id: string }) => k.id === created.id).last_used_at).not.toBeNull();

    const revoked = await studio.app.inject({
      method: "DELETE",
      url: `/api/api-keys/${created.id}`,
      headers: owner.auth,
    });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().data.revoked_at).not.toBeNull();
    const after = await studio.app.inject({ method: "GET", url: "/api/auth/me", headers: withKey });
    expect(after.statusCode).toBe(401);
    expect(after.json().error.code).toBe("AUTH_INVALID_TOKEN");
  });

  it("does not let an API key manage API keys", async () => {
    const created = await createKey(owner, "limited");
    const withKey = { authorization: `Bearer ${created.key}` };
    const attempts = [
      { method: "POST", url: "/api/api-keys", payload: { name: "minted" } },
      { method: "GET", url: "/api/api-keys" },
      { method: "DELETE", url: `/api/api-keys/${created.id}` },
    ] as const;
    for (const attempt of attempts) {
      const response = await studio.app.inject({ ...attempt, headers: withKey });
      expect(response.statusCode).toBe(403);
      expect(response.json().error.code).toBe("AUTH_SESSION_REQUIRED");
    }
  });

  it("answers 404 for another user's key and leaves it working", async () => {
    const created = await createKey(owner, "mine");
    const foreign = await studio.app.inject({
      method: "DELETE",
      url: `/api/api-keys/${created.id}`,
      headers: other.auth,
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error.code).toBe("API_KEY_NOT_FOUND");
    const otherList = (await studio.app.inject({ method: "GET", url: "/api/api-keys", headers: other.auth })).json()
      .data;
    expect(otherList).toEqual([]);
    const still = await studio.app.inject({
      method: "GET",
      url: "/api/auth/me",
      headers: { authorization: `Bearer ${created.key}` },
    });
    expect(still.statusCode).toBe(200);
  });

  it("rejects a made-up key", async () => {
    const response = await studio.app.inject({
      method: "GET",
      url: "/api/workflows",
      headers: { authorization: `Bearer ssk_${"A".repeat(43)}` },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe("AUTH_INVALID_TOKEN");
  });
});
