import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort, type RedisServer, startRedisServer } from "../../test/redis-server.js";
import { startTestStudio, type TestStudio } from "../../test/test-studio.js";

describe("health and API docs", () => {
  let studio: TestStudio;
  beforeAll(async () => {
    studio = await startTestStudio();
  });
  afterAll(() => studio.close());

  it("answers health without a token, naming the database in use", async () => {
    const response = await studio.app.inject({ method: "GET", url: "/api/health" });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: {
        status: "ok",
        version: "0.1.0",
        db: inject("dbKind"),
        queue: "memory",
        redis: null,
        executes_runs: true,
        import_enabled: false,
        background: { failures: 0, last_failure_at: null, last_failure_task: null, last_sweep_at: null },
      },
    });
    expect(response.headers["x-request-id"]).toMatch(/.+/);
  });

  it("keeps a caller's plain X-Request-Id and replaces a malformed one", async () => {
    const kept = await studio.app.inject({ method: "GET", url: "/api/health", headers: { "x-request-id": "abc-123" } });
    expect(kept.headers["x-request-id"]).toBe("abc-123");
    const replaced = await studio.app.inject({
      method: "GET",
      url: "/api/health",
      headers: { "x-request-id": "bad id\twith spaces" },
    });
    expect(replaced.headers["x-request-id"]).not.toBe("bad id\twith spaces");
  });

  it("reports import_enabled from configuration", async () => {
    const other = await startTestStudio({ STUDIO_ENABLE_IMPORT: "1" });
    try {
      const { data } = (await other.app.inject({ method: "GET", url: "/api/health" })).json();
      expect(data.import_enabled).toBe(true);
    } finally {
      await other.close();
    }
  });

  describe("with REDIS_URL", () => {
    let redis: RedisServer;
    beforeAll(async () => {
      redis = await startRedisServer();
    });
    afterAll(() => redis?.stop());

    it("reports the Redis queue, that Redis answers, and that this API process leaves runs to workers", async () => {
      const other = await startTestStudio({ REDIS_URL: redis.url });
      try {
        const response = await other.app.inject({ method: "GET", url: "/api/health" });
        expect(response.statusCode).toBe(200);
        expect(response.json().data).toMatchObject({
          status: "ok",
          db: inject("dbKind"),
          queue: "redis",
          redis: "ok",
          executes_runs: false,
        });
      } finally {
        await other.close();
      }
    });

    it("says when Redis stops answering, and that it answers again", async () => {
      const other = await startTestStudio({ REDIS_URL: redis.url, STUDIO_RUN_JOBS: "1" });
      try {
        await redis.kill();
        const down = await other.app.inject({ method: "GET", url: "/api/health" });
        expect(down.statusCode).toBe(200);
        expect(down.json().data).toMatchObject({
          status: "degraded",
          queue: "redis",
          redis: "unavailable",
          executes_runs: true,
        });
        await redis.restart();
        await expect
          .poll(async () => (await other.app.inject({ method: "GET", url: "/api/health" })).json().data.redis)
          .toBe("ok");
      } finally {
        await other.close();
      }
    });
  });

  it("starts with a Redis that does not answer: a clear log line, and health says so (no crash)", async () => {
    const port = await freePort();
    const lines: string[] = [];
    const logTo = new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const other = await startTestStudio(
      { REDIS_URL: `redis://:hidden-password@127.0.0.1:${port}`, STUDIO_LOG_LEVEL: "warn" },
      { logTo },
    );
    try {
      const { data } = (await other.app.inject({ method: "GET", url: "/api/health" })).json();
      expect(data).toMatchObject({ status: "degraded", queue: "redis", redis: "unavailable" });
      const log = lines.join("");
      expect(log).toContain(`Redis does not answer at redis://127.0.0.1:${port}`);
      expect(log).not.toContain("hidden-password");
    } finally {
      await other.close();
    }
  });

  it("answers 404 IMPORT_DISABLED on every import route while import is off", async () => {
    for (const [method, url] of [
      ["GET", "/api/import"],
      ["POST", "/api/import/jobs"],
      ["GET", "/api/imports/123"],
      ["POST", "/api/imports/123/workflows"],
    ] as const) {
      const response = await studio.app.inject({ method, url });
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe("IMPORT_DISABLED");
    }
  });

  it("serves an OpenAPI document generated from the route schemas", async () => {
    const response = await studio.app.inject({ method: "GET", url: "/api/docs/json" });
    expect(response.statusCode).toBe(200);
    const doc = response.json();
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/api/health",
        "/api/auth/setup",
        "/api/auth/login",
        "/api/workflows",
        "/api/workflows/{id}",
        "/api/workflows/{id}/versions/{n}/restore",
        "/api/api-keys",
      ]),
    );
    const body = doc.paths["/api/workflows"].post.requestBody.content["application/json"].schema;
    expect(body.required).toEqual(expect.arrayContaining(["name"]));
    expect(body.additionalProperties).toBe(false);
  });

  it("answers 503 DATABASE_UNAVAILABLE when the database is gone", async () => {
    const other = await startTestStudio();
    await other.container.database.close();
    try {
      const response = await other.app.inject({ method: "GET", url: "/api/health" });
      expect(response.statusCode).toBe(503);
      expect(response.json().error.code).toBe("DATABASE_UNAVAILABLE");
    } finally {
      await other.app.close();
    }
  });
});
