import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";
import { AppError } from "./errors.js";

describe("configuration", () => {
  it("fills in the documented defaults", () => {
    const config = loadConfig({}, false);
    expect(config).toMatchObject({
      port: 8080,
      host: "127.0.0.1",
      dataDir: join(homedir(), ".superstep"),
      databaseUrl: null,
      redisUrl: null,
      jwtSecret: null,
      jwtTtlSeconds: 604800,
      allowSignup: false,
      enableImport: false,
      logLevel: "info",
      logFormat: "json",
      maxBodyBytes: 2 * 1024 * 1024,
      authRateLimitPerMinute: 20,
    });
    expect(config.uiDir).toMatch(/frontend[/\\]dist$/);
  });

  it("reads every variable it documents", () => {
    const config = loadConfig({
      STUDIO_PORT: "9000",
      STUDIO_HOST: "0.0.0.0",
      STUDIO_DATA_DIR: "~/studio-data",
      DATABASE_URL: "postgres://u:p@127.0.0.1:5432/db",
      REDIS_URL: "redis://127.0.0.1:6379",
      JWT_SECRET: "s".repeat(40),
      STUDIO_JWT_TTL_SECONDS: "3600",
      STUDIO_ALLOW_SIGNUP: "true",
      STUDIO_ENABLE_IMPORT: "1",
      STUDIO_LOG_LEVEL: "DEBUG",
      STUDIO_LOG_FORMAT: "json",
      STUDIO_MAX_BODY_BYTES: "65536",
      STUDIO_AUTH_RATE_LIMIT: "5",
      STUDIO_UI_DIR: "/srv/ui",
    });
    expect(config).toEqual({
      port: 9000,
      host: "0.0.0.0",
      dataDir: join(homedir(), "studio-data"),
      databaseUrl: "postgres://u:p@127.0.0.1:5432/db",
      redisUrl: "redis://127.0.0.1:6379",
      jwtSecret: "s".repeat(40),
      jwtTtlSeconds: 3600,
      allowSignup: true,
      enableImport: true,
      logLevel: "debug",
      logFormat: "json",
      maxBodyBytes: 65536,
      authRateLimitPerMinute: 5,
      uiDir: "/srv/ui",
    });
  });

  it.each([
    ["STUDIO_PORT", "eighty"],
    ["STUDIO_PORT", "70000"],
    ["STUDIO_ALLOW_SIGNUP", "maybe"],
    ["STUDIO_LOG_LEVEL", "loud"],
    ["STUDIO_LOG_FORMAT", "xml"],
    ["DATABASE_URL", "mysql://localhost/db"],
    ["JWT_SECRET", "short"],
    ["STUDIO_MAX_BODY_BYTES", "-1"],
  ])("refuses %s=%s with CONFIG_INVALID naming the variable", (name, value) => {
    let caught: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).code).toBe("CONFIG_INVALID");
    expect((caught as AppError).message).toContain(name);
  });

  it("logs readable lines at a terminal and JSON lines elsewhere", () => {
    expect(loadConfig({}, true).logFormat).toBe("pretty");
    expect(loadConfig({}, false).logFormat).toBe("json");
    expect(loadConfig({ STUDIO_LOG_FORMAT: "json" }, true).logFormat).toBe("json");
  });

  it("never echoes secrets in its errors", () => {
    expect(() => loadConfig({ JWT_SECRET: "tiny-secret" })).toThrow(/JWT_SECRET="\(hidden\)"/);
    expect(() => loadConfig({ DATABASE_URL: "mysql://user:hunter2@h/db" })).not.toThrow(/hunter2/);
  });
});
