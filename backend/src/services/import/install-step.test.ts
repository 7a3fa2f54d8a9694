// The install step's time limit and a sandbox that cannot start, with the real subprocess runtime.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SubprocessSandbox } from "../../engine/sandbox/container/subprocess-sandbox.js";
import { runInstallStep } from "./install-step.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function job(): string {
  const dir = mkdtempSync(join(tmpdir(), "superstep-install-step-"));
  dirs.push(dir);
  mkdirSync(join(dir, "src"));
  return dir;
}

const input = (python: string, timeoutMs: number) => ({
  sandbox: new SubprocessSandbox({ runnerPath: "/unused/runner.py", importDir: tmpdir(), wheelsDir: null, python }),
  jobDir: job(),
  sourceRoot: "src",
  kind: "none" as const,
  indexUrl: null,
  env: {},
  timeoutMs,
  signal: new AbortController().signal,
  log: () => undefined,
});

describe("install step", () => {
  it("stops at STUDIO_IMPORT_INSTALL_TIMEOUT with IMPORT_INSTALL_TIMEOUT", async () => {
    // A venv takes far longer than a millisecond to make.
    await expect(runInstallStep(input("python3", 1))).rejects.toMatchObject({
      code: "IMPORT_INSTALL_TIMEOUT",
      details: { timeout_seconds: 0 },
    });
  });

  it("fails with IMPORT_SANDBOX_UNAVAILABLE when the interpreter cannot be started", async () => {
    await expect(runInstallStep(input("/nonexistent/python3", 60_000))).rejects.toMatchObject({
      code: "IMPORT_SANDBOX_UNAVAILABLE",
    });
  });

  it("stops when the job is cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(runInstallStep({ ...input("python3", 60_000), signal: controller.signal })).rejects.toMatchObject({
      code: "IMPORT_INTERRUPTED",
    });
  });
});
