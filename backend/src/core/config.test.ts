import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultRunThreads, loadConfig } from "./config.js";
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
      runJobs: true,
      workerHealthPort: 8081,
      jwtSecret: null,
      jwtTtlSeconds: 604800,
      allowSignup: false,
      enableImport: false,
      logLevel: "info",
      logFormat: "json",
      maxBodyBytes: 2 * 1024 * 1024,
      authRateLimitPerMinute: 20,
      hookRateLimitPerMinute: 600,
      workerConcurrency: 4,
      runThreads: defaultRunThreads(),
      runThreadNice: 10,
      runLeaseTtlMs: 30_000,
      userMaxRuns: 2,
      userMaxQueued: 100,
      userRunRatePerMinute: 60,
      maxQueuedRuns: 10_000,
      maxInFlight: 256,
      dbBusyTimeoutMs: 5000,
      pgPreparedStatements: true,
      scheduleMinIntervalSeconds: 60,
      heapGrowthPercent: 50,
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
      STUDIO_RUN_JOBS: "1",
      STUDIO_WORKER_HEALTH_PORT: "9100",
      JWT_SECRET: "s".repeat(40),
      STUDIO_JWT_TTL_SECONDS: "3600",
      STUDIO_ALLOW_SIGNUP: "true",
      STUDIO_ENABLE_IMPORT: "1",
      STUDIO_LOG_LEVEL: "DEBUG",
      STUDIO_LOG_FORMAT: "json",
      STUDIO_MAX_BODY_BYTES: "65536",
      STUDIO_AUTH_RATE_LIMIT: "5",
      STUDIO_HOOK_RATE_LIMIT: "30",
      STUDIO_UI_DIR: "/srv/ui",
      STUDIO_WORKER_CONCURRENCY: "8",
      STUDIO_RUN_THREADS: "0",
      STUDIO_RUN_THREAD_NICE: "5",
      STUDIO_RUN_LEASE_TTL: "5",
      STUDIO_USER_MAX_RUNS: "3",
      STUDIO_USER_MAX_QUEUED: "40",
      STUDIO_USER_RUN_RATE: "120",
      STUDIO_MAX_QUEUED: "5000",
      STUDIO_MAX_IN_FLIGHT: "64",
      STUDIO_DB_BUSY_TIMEOUT_MS: "250",
      STUDIO_PG_PREPARED_STATEMENTS: "off",
      STUDIO_SCHEDULE_MIN_INTERVAL: "300",
      STUDIO_CALLBACK_RETRY_BASE_MS: "50",
      STUDIO_ENCRYPTION_KEY: "ab".repeat(32),
      STUDIO_ENCRYPTION_KEY_PREVIOUS: `${"cd".repeat(32)}, ${Buffer.alloc(32, 7).toString("base64")}`,
      STUDIO_HEAP_GROWTH_PERCENT: "80",
    });
    expect(config).toEqual({
      port: 9000,
      host: "0.0.0.0",
      dataDir: join(homedir(), "studio-data"),
      databaseUrl: "postgres://u:p@127.0.0.1:5432/db",
      redisUrl: "redis://127.0.0.1:6379",
      runJobs: true,
      workerHealthPort: 9100,
      jwtSecret: "s".repeat(40),
      jwtTtlSeconds: 3600,
      allowSignup: true,
      enableImport: true,
      logLevel: "debug",
      logFormat: "json",
      maxBodyBytes: 65536,
      authRateLimitPerMinute: 5,
      hookRateLimitPerMinute: 30,
      uiDir: "/srv/ui",
      workerConcurrency: 8,
      runThreads: 0,
      runThreadNice: 5,
      runLeaseTtlMs: 5000,
      userMaxRuns: 3,
      userMaxQueued: 40,
      userRunRatePerMinute: 120,
      maxQueuedRuns: 5000,
      maxInFlight: 64,
      dbBusyTimeoutMs: 250,
      pgPreparedStatements: false,
      scheduleMinIntervalSeconds: 300,
      callbackRetryBaseMs: 50,
      encryptionKey: "ab".repeat(32),
      encryptionKeysPrevious: ["cd".repeat(32), Buffer.alloc(32, 7).toString("base64")],
      heapGrowthPercent: 80,
      imports: expect.any(Object),
      engine: expect.any(Object),
    });
  });

  it("reads the import settings, with the documented defaults", () => {
    expect(loadConfig({ STUDIO_DATA_DIR: "/srv/studio" }).imports).toEqual({
      dir: "/srv/studio/imports",
      maxBytes: 200 * 1024 * 1024,
      maxAgeHours: 72,
      image: "python:3.12-slim",
      memory: "1g",
      cpus: 1,
      pids: 256,
      network: "bridge",
      secrets: [],
      runtime: "docker",
      installTimeoutMs: 15 * 60 * 1000,
      inspectTimeoutMs: 120_000,
      runTimeoutMs: 300_000,
      hostDir: null,
      dockerGid: null,
      wheelsDir: null,
      indexUrl: null,
      python: "python3",
      testGitMirror: null,
    });
    expect(
      loadConfig({
        STUDIO_IMPORT_DIR: "/var/imports",
        STUDIO_IMPORT_MAX_BYTES: "1048576",
        STUDIO_IMPORT_MAX_AGE_HOURS: "0",
        STUDIO_IMPORT_IMAGE: "registry.local/studio/python:3.12@sha256:abc",
        STUDIO_IMPORT_MEMORY: "512M",
        STUDIO_IMPORT_CPUS: "0.5",
        STUDIO_IMPORT_PIDS: "64",
        STUDIO_IMPORT_NETWORK: "none",
        STUDIO_IMPORT_SECRETS: "OPENAI_API_KEY, TAVILY_API_KEY",
        STUDIO_IMPORT_RUNTIME: "subprocess",
        STUDIO_IMPORT_INSTALL_TIMEOUT: "60",
        STUDIO_INSPECT_TIMEOUT: "5",
        STUDIO_RUN_TIMEOUT: "12",
        STUDIO_IMPORT_HOST_DIR: "/home/me/studio/.imports",
        STUDIO_DOCKER_GID: "998",
        STUDIO_IMPORT_WHEELS: "/srv/wheels",
        STUDIO_IMPORT_INDEX_URL: "https://pypi.internal/simple",
        STUDIO_IMPORT_PYTHON: "/usr/bin/python3.12",
        STUDIO_TEST_IMPORT_GIT_MIRROR: "/tmp/mirror",
      }).imports,
    ).toEqual({
      dir: "/var/imports",
      maxBytes: 1048576,
      maxAgeHours: 0,
      image: "registry.local/studio/python:3.12@sha256:abc",
      memory: "512m",
      cpus: 0.5,
      pids: 64,
      network: "none",
      secrets: ["OPENAI_API_KEY", "TAVILY_API_KEY"],
      runtime: "subprocess",
      installTimeoutMs: 60_000,
      inspectTimeoutMs: 5000,
      runTimeoutMs: 12_000,
      hostDir: "/home/me/studio/.imports",
      dockerGid: 998,
      wheelsDir: "/srv/wheels",
      indexUrl: "https://pypi.internal/simple",
      python: "/usr/bin/python3.12",
      testGitMirror: "/tmp/mirror",
    });
    for (const url of ["ftp://pypi.internal/simple", "not a url"]) {
      expect(() => loadConfig({ STUDIO_IMPORT_INDEX_URL: url })).toThrow(AppError);
    }
  });

  it("with REDIS_URL, leaves queued runs to worker processes unless STUDIO_RUN_JOBS says otherwise", () => {
    expect(loadConfig({ REDIS_URL: "redis://127.0.0.1:6379" }).runJobs).toBe(false);
    expect(loadConfig({ REDIS_URL: "rediss://u:p@redis.internal:6380/2", STUDIO_RUN_JOBS: "yes" }).runJobs).toBe(true);
    expect(loadConfig({ STUDIO_RUN_JOBS: "1" }).runJobs).toBe(true);
  });

  it("refuses a REDIS_URL that is not a redis URL, without echoing it, and STUDIO_RUN_JOBS=0 without Redis", () => {
    for (const [env, name] of [
      [{ REDIS_URL: "http://u:secret@127.0.0.1:6379" }, "REDIS_URL"],
      [{ REDIS_URL: "redis://[bad" }, "REDIS_URL"],
      [{ STUDIO_RUN_JOBS: "0" }, "STUDIO_RUN_JOBS"],
      [{ REDIS_URL: "redis://127.0.0.1:6379", STUDIO_RUN_JOBS: "maybe" }, "STUDIO_RUN_JOBS"],
      [{ STUDIO_WORKER_HEALTH_PORT: "70000" }, "STUDIO_WORKER_HEALTH_PORT"],
    ] as const) {
      let caught: unknown;
      try {
        loadConfig(env);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(AppError);
      expect((caught as AppError).code).toBe("CONFIG_INVALID");
      expect(JSON.stringify((caught as AppError).details)).toContain(name);
      expect(JSON.stringify((caught as AppError).details)).not.toContain("secret");
    }
  });

  it("reads the engine settings, in seconds and megabytes where documented", () => {
    expect(loadConfig({}).engine).toEqual({
      codeMode: "wasm",
      codeTimeoutMs: 10_000,
      codeMemoryMb: 256,
      codeWarm: 1,
      codeWarmMax: 4,
      codeSnapshotDir: join(homedir(), ".superstep", "cache"),
      runTimeoutMs: 3_600_000,
      maxSupersteps: 200,
      maxEventBytes: 65536,
      maxStateBytes: 5 * 1024 * 1024,
      maxSubgraphDepth: 5,
      smtpUrl: null,
      smtpFrom: "Superstep <superstep@localhost>",
      openai: { apiKey: null, baseUrl: null },
      anthropic: { apiKey: null, baseUrl: null },
      egressAllow: [],
      serverKeyEndpoints: [],
      testPauseAt: null,
    });
    const engine = loadConfig({
      STUDIO_CODE_MODE: "off",
      STUDIO_CODE_TIMEOUT: "2",
      STUDIO_CODE_MEMORY: "64",
      STUDIO_CODE_WARM: "2",
      STUDIO_CODE_WARM_MAX: "6",
      STUDIO_DATA_DIR: "/srv/studio",
      STUDIO_RUN_TIMEOUT: "30",
      STUDIO_MAX_SUPERSTEPS: "50",
      STUDIO_MAX_EVENT_BYTES: "2048",
      STUDIO_MAX_STATE_BYTES: "4096",
      STUDIO_MAX_SUBGRAPH_DEPTH: "2",
      STUDIO_SMTP_URL: "smtp://127.0.0.1:2525",
      STUDIO_SMTP_FROM: "Bot <bot@example.com>",
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: "http://127.0.0.1:11434/v1",
      ANTHROPIC_API_KEY: "ak-test",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9999",
      STUDIO_EGRESS_ALLOW: "127.0.0.1:11434, ollama.internal *.svc.local,10.0.0.0/8",
      STUDIO_SERVER_KEY_ENDPOINTS: "https://gateway.example.com/openai/v1",
      STUDIO_TEST_PAUSE_AT: "ledger:sub/t2",
    }).engine;
    expect(engine).toEqual({
      codeMode: "off",
      codeTimeoutMs: 2000,
      codeMemoryMb: 64,
      codeWarm: 2,
      codeWarmMax: 6,
      codeSnapshotDir: join("/srv/studio", "cache"),
      runTimeoutMs: 30_000,
      maxSupersteps: 50,
      maxEventBytes: 2048,
      maxStateBytes: 4096,
      maxSubgraphDepth: 2,
      smtpUrl: "smtp://127.0.0.1:2525",
      smtpFrom: "Bot <bot@example.com>",
      openai: { apiKey: "sk-test", baseUrl: "http://127.0.0.1:11434/v1" },
      anthropic: { apiKey: "ak-test", baseUrl: "http://127.0.0.1:9999" },
      egressAllow: expect.any(Array),
      serverKeyEndpoints: ["https://gateway.example.com"],
      testPauseAt: { point: "ledger", nodeId: "sub/t2" },
    });
    expect(loadConfig({ STUDIO_TEST_PAUSE_AT: "checkpoint:t3" }).engine.testPauseAt).toEqual({
      point: "checkpoint",
      nodeId: "t3",
    });
    expect(engine.egressAllow.map((rule) => rule.text)).toEqual([
      "127.0.0.1:11434",
      "ollama.internal",
      "*.svc.local",
      "10.0.0.0/8",
    ]);
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
    ["STUDIO_USER_MAX_RUNS", "0"],
    ["STUDIO_RUN_LEASE_TTL", "0"],
    ["STUDIO_RUN_LEASE_TTL", "1.5"],
    ["STUDIO_USER_MAX_QUEUED", "many"],
    ["STUDIO_USER_RUN_RATE", "0"],
    ["STUDIO_HOOK_RATE_LIMIT", "1.5"],
    ["STUDIO_MAX_QUEUED", "0"],
    ["STUDIO_MAX_IN_FLIGHT", "lots"],
    ["STUDIO_DB_BUSY_TIMEOUT_MS", "-5"],
    ["STUDIO_DB_BUSY_TIMEOUT_MS", "600001"],
    ["STUDIO_PG_PREPARED_STATEMENTS", "sometimes"],
    ["STUDIO_SCHEDULE_MIN_INTERVAL", "0"],
    ["STUDIO_HEAP_GROWTH_PERCENT", "-1"],
    ["STUDIO_HEAP_GROWTH_PERCENT", "401"],
    ["STUDIO_HEAP_GROWTH_PERCENT", "1.5"],
    ["STUDIO_RUN_THREADS", "-1"],
    ["STUDIO_RUN_THREADS", "65"],
    ["STUDIO_RUN_THREADS", "two"],
    ["STUDIO_CODE_MODE", "docker"],
    ["STUDIO_CODE_WARM", "-1"],
    ["STUDIO_CODE_WARM", "17"],
    ["STUDIO_CODE_WARM", "two"],
    ["STUDIO_CODE_WARM_MAX", "-1"],
    ["STUDIO_CODE_WARM_MAX", "17"],
    ["STUDIO_CODE_WARM_MAX", "many"],
    ["STUDIO_SMTP_URL", "http://mail"],
    ["OPENAI_BASE_URL", "not a url"],
    ["STUDIO_EGRESS_ALLOW", "10.0.0.0/33"],
    ["STUDIO_EGRESS_ALLOW", "host:99999"],
    ["STUDIO_EGRESS_ALLOW", "10.0.0.0/8:80"],
    ["STUDIO_EGRESS_ALLOW", "http://host/"],
    ["STUDIO_SERVER_KEY_ENDPOINTS", "gateway.example.com"],
    ["STUDIO_ENCRYPTION_KEY", "too-short"],
    ["STUDIO_ENCRYPTION_KEY_PREVIOUS", `${"ab".repeat(32)},nope`],
    ["STUDIO_TEST_PAUSE_AT", "t2"],
    ["STUDIO_TEST_PAUSE_AT", "during:t2"],
    ["STUDIO_TEST_PAUSE_AT", "ledger:"],
    ["STUDIO_IMPORT_MAX_BYTES", "lots"],
    ["STUDIO_IMPORT_MAX_BYTES", "10"],
    ["STUDIO_IMPORT_MAX_AGE_HOURS", "-1"],
    ["STUDIO_IMPORT_MAX_AGE_HOURS", "1.5"],
    ["STUDIO_IMPORT_IMAGE", "--privileged"],
    ["STUDIO_IMPORT_IMAGE", "python 3"],
    ["STUDIO_IMPORT_MEMORY", "lots"],
    ["STUDIO_IMPORT_MEMORY", "0"],
    ["STUDIO_IMPORT_MEMORY", "1t"],
    ["STUDIO_IMPORT_CPUS", "0"],
    ["STUDIO_IMPORT_CPUS", "-1"],
    ["STUDIO_IMPORT_CPUS", "one"],
    ["STUDIO_IMPORT_PIDS", "8"],
    ["STUDIO_IMPORT_NETWORK", "host"],
    ["STUDIO_IMPORT_SECRETS", "JWT_SECRET"],
    ["STUDIO_IMPORT_SECRETS", "OPENAI_API_KEY,DATABASE_URL"],
    ["STUDIO_IMPORT_SECRETS", "STUDIO_ENCRYPTION_KEY"],
    ["STUDIO_IMPORT_SECRETS", "bad-name"],
    ["STUDIO_IMPORT_RUNTIME", "gvisor"],
    ["STUDIO_IMPORT_INSTALL_TIMEOUT", "0"],
    ["STUDIO_INSPECT_TIMEOUT", "soon"],
    ["STUDIO_IMPORT_HOST_DIR", "relative/dir"],
    ["STUDIO_DOCKER_GID", "docker"],
    ["STUDIO_DOCKER_GID", "-1"],
    ["STUDIO_RUN_THREAD_NICE", "-5"],
    ["STUDIO_RUN_THREAD_NICE", "20"],
    ["STUDIO_RUN_THREAD_NICE", "low"],
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
    expect(() => loadConfig({ STUDIO_ENCRYPTION_KEY: "hunter2-hunter2" })).toThrow(/"\(hidden\)"/);
  });
});
