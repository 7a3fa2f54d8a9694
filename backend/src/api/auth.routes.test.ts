import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerMember, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";

function encode(part: object): string {
  return Buffer.from(JSON.stringify(part)).toString("base64url");
}

describe("auth: setup, login and tokens", () => {
  let studio: TestStudio;
  beforeAll(async () => {
    studio = await startTestStudio();
  });
  afterAll(() => studio.close());

  it("reports that setup is required, creates the owner once, then refuses a second setup", async () => {
    const before = await studio.app.inject({ method: "GET", url: "/api/auth/status" });
    expect(before.json().data).toEqual({ setup_required: true, signup_allowed: false });

    const owner = await setupOwner(studio, "Owner@Example.com", "owner-password");
    const me = await studio.app.inject({ method: "GET", url: "/api/auth/me", headers: owner.auth });
    expect(me.statusCode).toBe(200);
    expect(me.json().data).toMatchObject({ id: owner.userId, email: "owner@example.com", role: "owner" });
    expect(me.json().data).not.toHaveProperty("password_hash");

    const again = await studio.app.inject({
      method: "POST",
      url: "/api/auth/setup",
      payload: { email: "second@example.com", password: "another-password" },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe("SETUP_ALREADY_DONE");
    expect((await studio.app.inject({ method: "GET", url: "/api/auth/status" })).json().data.setup_required).toBe(
      false,
    );
  });

  it("logs in with the right password only, case-insensitively on the email", async () => {
    const ok = await studio.app.inject({
      method: "POST",
      url: "/api/auth/login",
      payload: { email: "OWNER@example.com", password: "owner-password" },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.token).toMatch(/^ey/);
    for (const payload of [
      { email: "owner@example.com", password: "wrong-password" },
      { email: "nobody@example.com", password: "owner-password" },
    ]) {
      const bad = await studio.app.inject({ method: "POST", url: "/api/auth/login", payload });
      expect(bad.statusCode).toBe(401);
      expect(bad.json().error.code).toBe("AUTH_INVALID_CREDENTIALS");
    }
  });

  it("refuses sign-up while STUDIO_ALLOW_SIGNUP is off", async () => {
    const response = await studio.app.inject({
      method: "POST",
      url: "/api/auth/register",
      payload: { email: "member@example.com", password: "member-password" },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe("SIGNUP_DISABLED");
  });

  describe("bearer tokens", () => {
    const cases: [string, (secret: string, userId: string) => Promise<string | undefined>, string][] = [
      ["no Authorization header", async () => undefined, "AUTH_REQUIRED"],
      ["a non-Bearer scheme", async () => "Basic dXNlcjpwYXNz", "AUTH_INVALID_TOKEN"],
      ["garbage", async () => "Bearer not-a-jwt", "AUTH_INVALID_TOKEN"],
      [
        "an expired token",
        async (secret, sub) =>
          `Bearer ${await new SignJWT({})
            .setProtectedHeader({ alg: "HS256" })
            .setSubject(sub)
            .setIssuer("superstep")
            .setAudience("superstep")
            .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
            .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
            .sign(new TextEncoder().encode(secret))}`,
        "AUTH_TOKEN_EXPIRED",
      ],
      [
        "a token signed with another secret",
        async (_secret, sub) =>
          `Bearer ${await new SignJWT({})
            .setProtectedHeader({ alg: "HS256" })
            .setSubject(sub)
            .setIssuer("superstep")
            .setAudience("superstep")
            .setExpirationTime("1h")
            .sign(new TextEncoder().encode("x".repeat(48)))}`,
        "AUTH_INVALID_TOKEN",
      ],
      [
        "an alg: none token",
        async (_secret, sub) =>
          `Bearer ${encode({ alg: "none", typ: "JWT" })}.${encode({ sub, iss: "superstep", exp: Math.floor(Date.now() / 1000) + 3600 })}.`,
        "AUTH_INVALID_TOKEN",
      ],
      [
        "an HS512 token with the right secret",
        async (secret, sub) =>
          `Bearer ${await new SignJWT({})
            .setProtectedHeader({ alg: "HS512" })
            .setSubject(sub)
            .setIssuer("superstep")
            .setAudience("superstep")
            .setExpirationTime("1h")
            .sign(new TextEncoder().encode(secret))}`,
        "AUTH_INVALID_TOKEN",
      ],
      [
        "a token without an audience",
        async (secret, sub) =>
          `Bearer ${await new SignJWT({})
            .setProtectedHeader({ alg: "HS256" })
            .setSubject(sub)
            .setIssuer("superstep")
            .setExpirationTime("1h")
            .sign(new TextEncoder().encode(secret))}`,
        "AUTH_INVALID_TOKEN",
      ],
      [
        "a token for another audience",
        async (secret, sub) =>
          `Bearer ${await new SignJWT({})
            .setProtectedHeader({ alg: "HS256" })
            .setSubject(sub)
            .setIssuer("superstep")
            .setAudience("another-service")
            .setExpirationTime("1h")
            .sign(new TextEncoder().encode(secret))}`,
        "AUTH_INVALID_TOKEN",
      ],
      [
        "a token without an expiry",
        async (secret, sub) =>
          `Bearer ${await new SignJWT({})
            .setProtectedHeader({ alg: "HS256" })
            .setSubject(sub)
            .setIssuer("superstep")
            .setAudience("superstep")
            .sign(new TextEncoder().encode(secret))}`,
        "AUTH_INVALID_TOKEN",
      ],
      [
        "a valid signature for a user that does not exist",
        async (secret) =>
          `Bearer ${await new SignJWT({})
            .setProtectedHeader({ alg: "HS256" })
            .setSubject("00000000-0000-4000-8000-000000000000")
            .setIssuer("superstep")
            .setAudience("superstep")
            .setExpirationTime("1h")
            .sign(new TextEncoder().encode(secret))}`,
        "AUTH_INVALID_TOKEN",
      ],
    ];

    it.each(cases)("answers 401 for %s", async (_name, makeHeader, code) => {
      const login = await studio.app.inject({
        method: "POST",
        url: "/api/auth/login",
        payload: { email: "owner@example.com", password: "owner-password" },
      });
      const userId = login.json().data.user.id;
      const header = await makeHeader(studio.jwtSecret(), userId);
      const response = await studio.app.inject({
        method: "GET",
        url: "/api/workflows",
        headers: header ? { authorization: header } : {},
      });
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe(code);
    });

    it("accepts a hand-made token only when it names the studio as its audience", async () => {
      const login = await studio.app.inject({
        method: "POST",
        url: "/api/auth/login",
        payload: { email: "owner@example.com", password: "owner-password" },
      });
      const userId = login.json().data.user.id;
      const sign = (audience: string | null) => {
        const jwt = new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject(userId).setIssuer("superstep");
        if (audience) jwt.setAudience(audience);
        return jwt.setExpirationTime("1h").sign(new TextEncoder().encode(studio.jwtSecret()));
      };
      const call = async (token: string) =>
        studio.app.inject({ method: "GET", url: "/api/auth/me", headers: { authorization: `Bearer ${token}` } });
      expect((await call(await sign("superstep"))).statusCode).toBe(200);
      expect((await call(await sign(null))).json().error.code).toBe("AUTH_INVALID_TOKEN");
      expect((await call(await sign("superstep-admin"))).json().error.code).toBe("AUTH_INVALID_TOKEN");
      // The studio's own tokens carry the audience.
      const issued = login.json().data.token as string;
      const claims = JSON.parse(Buffer.from(issued.split(".")[1] as string, "base64url").toString("utf8"));
      expect(claims).toMatchObject({ aud: "superstep", iss: "superstep", sub: userId });
    });
  });

  it("keeps the generated JWT secret in the data dir, readable by the owner only", async () => {
    const { statSync } = await import("node:fs");
    const { join } = await import("node:path");
    const mode = statSync(join(studio.config.dataDir, "jwt-secret")).mode & 0o777;
    expect(mode).toBe(0o600);
    expect(studio.jwtSecret().length).toBeGreaterThanOrEqual(32);
  });
});

describe("auth: sign-up and races", () => {
  it("lets members register when sign-up is on, after setup, with unique emails", async () => {
    const studio = await startTestStudio({ STUDIO_ALLOW_SIGNUP: "1" });
    try {
      const early = await studio.app.inject({
        method: "POST",
        url: "/api/auth/register",
        payload: { email: "early@example.com", password: "member-password" },
      });
      expect(early.json().error.code).toBe("SETUP_REQUIRED");
      await setupOwner(studio);
      const member = await registerMember(studio, "member@example.com");
      const me = await studio.app.inject({ method: "GET", url: "/api/auth/me", headers: member.auth });
      expect(me.json().data.role).toBe("member");
      const duplicate = await studio.app.inject({
        method: "POST",
        url: "/api/auth/register",
        payload: { email: "MEMBER@example.com", password: "member-password" },
      });
      expect(duplicate.statusCode).toBe(409);
      expect(duplicate.json().error.code).toBe("EMAIL_TAKEN");
    } finally {
      await studio.close();
    }
  });

  it("creates exactly one owner when several setups race", async () => {
    const studio = await startTestStudio();
    try {
      const responses = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          studio.app.inject({
            method: "POST",
            url: "/api/auth/setup",
            payload: { email: `racer${i}@example.com`, password: "racer-password" },
          }),
        ),
      );
      const codes = responses.map((r) => r.statusCode).sort();
      expect(codes.filter((c) => c === 201)).toHaveLength(1);
      expect(codes.filter((c) => c === 409)).toHaveLength(5);
      const status = await studio.app.inject({ method: "GET", url: "/api/auth/status" });
      expect(status.json().data.setup_required).toBe(false);
    } finally {
      await studio.close();
    }
  });

  it("rate limits the auth routes per client", async () => {
    const studio = await startTestStudio({ STUDIO_AUTH_RATE_LIMIT: "3" });
    try {
      const attempt = () =>
        studio.app.inject({
          method: "POST",
          url: "/api/auth/login",
          payload: { email: "someone@example.com", password: "some-password" },
        });
      for (let i = 0; i < 3; i++) expect((await attempt()).statusCode).toBe(401);
      const limited = await attempt();
      expect(limited.statusCode).toBe(429);
      expect(limited.json().error.code).toBe("RATE_LIMITED");
      expect(limited.json().error.details.retry_after_seconds).toBeGreaterThan(0);
    } finally {
      await studio.close();
    }
  });
});
