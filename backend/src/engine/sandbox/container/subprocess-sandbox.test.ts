import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AppError } from "../../../core/errors.js";
import { stopReason } from "../import-sandbox.js";
import { MAX_LINE_BYTES } from "./line-splitter.js";
import { passedVariables, sandboxEnvironment } from "./sandbox-env.js";
import { SubprocessSandbox } from "./subprocess-sandbox.js";

const dirs: string[] = [];
function jobDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "superstep-subprocess-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const sandbox = new SubprocessSandbox({
  runnerPath: "/opt/runner.py",
  importDir: "/srv/imports",
  wheelsDir: null,
  python: "python3",
});

async function run(
  script: string,
  options: { timeoutMs?: number; signal?: AbortSignal; env?: Record<string, string> } = {},
) {
  const out: string[] = [];
  const err: string[] = [];
  const result = await sandbox.exec({
    phase: "run",
    jobDir: jobDir(),
    argv: ["python3", "-c", script],
    env: options.env ?? {},
    timeoutMs: options.timeoutMs ?? 60_000,
    signal: options.signal,
    onStdoutLine: (line) => out.push(line),
    onStderrLine: (line) => err.push(line),
  });
  return { result, out, err };
}

describe("subprocess import sandbox", () => {
  it("hands stdout and stderr over a line at a time, the last partial line included, with the exit code", async () => {
    const { result, out, err } = await run(
      "import sys; print('one'); print('two'); sys.stderr.write('warn\\n'); sys.stdout.write('tail'); sys.exit(3)",
    );
    expect(out).toEqual(["one", "two", "tail"]);
    expect(err).toEqual(["warn"]);
    expect(result).toEqual({ exitCode: 3, timedOut: false, aborted: false, outOfMemory: false });
  });

  it("gives the command only the environment it was given, and the server's PATH", async () => {
    process.env.JWT_SECRET_FOR_TEST = "leak";
    try {
      const out: string[] = [];
      await sandbox.exec({
        phase: "run",
        jobDir: jobDir(),
        argv: ["/usr/bin/env"],
        env: { ONLY: "1" },
        timeoutMs: 60_000,
        onStdoutLine: (line) => out.push(line),
      });
      expect(out.map((line) => line.split("=")[0]).sort()).toEqual(["ONLY", "PATH"]);
    } finally {
      delete process.env.JWT_SECRET_FOR_TEST;
    }
  });

  it("stops the whole process group on the time limit and says so", async () => {
    const { result, out } = await run(
      "import os, time, sys\nif os.fork() == 0:\n  time.sleep(600)\nprint('started', flush=True)\ntime.sleep(600)",
      { timeoutMs: 1500 },
    );
    expect(out).toEqual(["started"]);
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBe(137);
    expect(stopReason(result, 1500)).toBe("Sandbox stopped (time limit (2s))");
  });

  it("stops the command when its signal aborts", async () => {
    const controller = new AbortController();
    const pending = sandbox.exec({
      phase: "run",
      jobDir: jobDir(),
      argv: ["python3", "-c", "import time; print('up', flush=True); time.sleep(600)"],
      env: {},
      timeoutMs: 600_000,
      signal: controller.signal,
      onStdoutLine: () => controller.abort(),
    });
    const result = await pending;
    expect(result.aborted).toBe(true);
    expect(result.timedOut).toBe(false);
  });

  it("cuts a line longer than the protocol allows instead of holding it", async () => {
    const { out } = await run(`import sys; sys.stdout.write('x' * ${MAX_LINE_BYTES + 10}); print(); print('next')`);
    expect(out.map((line) => line.length)).toEqual([MAX_LINE_BYTES, 4]);
  });

  it("refuses a program that cannot be started with IMPORT_SANDBOX_UNAVAILABLE", async () => {
    const error = await sandbox
      .exec({ phase: "install", jobDir: jobDir(), argv: ["/nonexistent/python3"], env: {}, timeoutMs: 5000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("IMPORT_SANDBOX_UNAVAILABLE");
  });

  it("reports exit 137 without a time limit as out of memory", () => {
    expect(stopReason({ exitCode: 137, timedOut: false, aborted: false, outOfMemory: false }, 5000)).toBe(
      "Sandbox stopped (out of memory (exit 137))",
    );
    expect(stopReason({ exitCode: 1, timedOut: false, aborted: false, outOfMemory: false }, 5000)).toBeNull();
  });
});

describe("the sandbox's environment", () => {
  const serverEnv = {
    OPENAI_API_KEY: "sk-test",
    TAVILY_API_KEY: "tv",
    JWT_SECRET: "j",
    DATABASE_URL: "postgres://x",
    REDIS_URL: "redis://x",
    STUDIO_ENCRYPTION_KEY: "k",
    HOME: "/root",
    EMPTY: "",
  };

  it("passes the declared names the server has and the configured secrets, never the server's own", () => {
    expect(
      passedVariables({
        declared: ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DATABASE_URL", "STUDIO_ENCRYPTION_KEY", "EMPTY", "bad-name"],
        secrets: ["TAVILY_API_KEY", "JWT_SECRET", "REDIS_URL"],
        serverEnv,
      }),
    ).toEqual({ OPENAI_API_KEY: "sk-test", TAVILY_API_KEY: "tv" });
  });

  it("adds only what Python and pip need, with paths as the sandbox sees them", () => {
    const env = sandboxEnvironment({
      paths: sandbox.paths("/srv/imports/job-1"),
      declared: ["OPENAI_API_KEY"],
      secrets: [],
      serverEnv,
    });
    expect(env).toEqual({
      OPENAI_API_KEY: "sk-test",
      HOME: "/srv/imports/job-1/home",
      LANG: "C.UTF-8",
      PYTHONUNBUFFERED: "1",
      PIP_CACHE_DIR: "/srv/imports/.pip-cache",
      PIP_DISABLE_PIP_VERSION_CHECK: "1",
      PIP_NO_INPUT: "1",
    });
  });
});
