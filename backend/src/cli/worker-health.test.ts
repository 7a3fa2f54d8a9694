// The worker's liveness answer: the API's health view plus the worker's role, and errors in the
// API's shape (catalog code, message, details) with the same headers, Retry-After on a 503.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStudio, type TestStudio } from "../../test/test-studio.js";
import { HealthService } from "../services/health.service.js";
import { startWorkerHealth } from "./worker-health.js";

describe("worker health answer", () => {
  let studio: TestStudio;
  const servers: { close(): void }[] = [];

  beforeAll(async () => {
    studio = await startTestStudio();
  });
  afterAll(async () => {
    for (const server of servers) server.close();
    await studio.close();
  });

  const serve = async (container: Parameters<typeof startWorkerHealth>[0]) => {
    const { server, port } = await startWorkerHealth(container, "127.0.0.1", 0);
    servers.push(server);
    return `http://127.0.0.1:${port}`;
  };

  it("answers GET /health with the health view, the worker role and what it executes", async () => {
    const base = await serve(studio.container);
    const response = await fetch(`${base}/health`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: Record<string, unknown> };
    expect(body.data).toMatchObject({
      status: "ok",
      role: "worker",
      executing: 0,
      db: studio.config.databaseUrl ? "postgres" : "sqlite",
    });
  });

  it("answers any other path 404 NOT_FOUND in the API's error shape", async () => {
    const base = await serve(studio.container);
    const response = await fetch(`${base}/api/workflows`);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toContain("application/json");
    const body = (await response.json()) as { error: { code: string; message: string; details: unknown } };
    expect(body.error.code).toBe("NOT_FOUND");
    expect(body.error.message.length).toBeGreaterThan(0);
    expect(body.error).toHaveProperty("details");
  });

  it("answers 503 DATABASE_UNAVAILABLE with Retry-After while the database does not answer", async () => {
    const health = new HealthService({
      config: studio.config,
      dbKind: "sqlite",
      version: "0.0.0",
      ping: () => Promise.reject(new Error("connection refused")),
      background: () => studio.container.background.view(),
    });
    const base = await serve({ health, runs: studio.container.runs });
    const response = await fetch(`${base}/health`);
    expect(response.status).toBe(503);
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const body = (await response.json()) as { error: { code: string; details: unknown } };
    expect(body.error).toEqual(expect.objectContaining({ code: "DATABASE_UNAVAILABLE", details: { db: "sqlite" } }));
  });
});
