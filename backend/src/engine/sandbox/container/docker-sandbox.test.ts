// The Docker sandbox on the real engine with the registry-free Python image
// (scripts/build-python-image.sh, built here when missing). Every container runs with network
// `none`: inspection and runs by configuration, the install because it takes its packages from
// the offline wheel directory. A machine without Docker fails these tests.

import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ImportConfig, loadConfig } from "../../../core/config.js";
import { AppError } from "../../../core/errors.js";
import { type SandboxCommand, type SandboxResult, stopReason } from "../import-sandbox.js";
import { DockerSandbox } from "./docker-sandbox.js";

const run = promisify(execFile);
const IMAGE = "superstep-python:local";
const repoRoot = fileURLToPath(new URL("../../../../../", import.meta.url));
const runnerPath = fileURLToPath(new URL("../runner.py", import.meta.url));
// Containers of this file only: afterEach removes what a failed test left.
const prefix = `superstep-import-test${randomBytes(4).toString("hex")}-`;

let dataDir = "";
const serverSecrets = {
  JWT_SECRET: "a-server-secret-that-must-never-leak-0123456789",
  DATABASE_URL: "postgres://x:y@db/z",
};
const savedEnv: Record<string, string | undefined> = {};

function importConfig(overrides: Record<string, string> = {}): ImportConfig {
  return loadConfig({
    STUDIO_DATA_DIR: dataDir,
    STUDIO_IMPORT_IMAGE: IMAGE,
    STUDIO_IMPORT_NETWORK: "none",
    STUDIO_IMPORT_MEMORY: "256m",
    STUDIO_IMPORT_PIDS: "64",
    ...overrides,
  }).imports;
}

function sandbox(config = importConfig(), options: { docker?: string; hostEnv?: NodeJS.ProcessEnv } = {}) {
  return new DockerSandbox({ config, runnerPath, namePrefix: prefix, ...options });
}

async function jobDir(config: ImportConfig): Promise<string> {
  await mkdir(config.dir, { recursive: true });
  return mkdtemp(join(config.dir, "job-"));
}

async function containers(): Promise<string[]> {
  const { stdout } = await run("docker", ["ps", "-aq", "--filter", `name=^/?${prefix}`]);
  return stdout.split("\n").filter((id) => id !== "");
}

interface Outcome {
  result: SandboxResult;
  stdout: string[];
  stderr: string[];
}

async function execute(
  box: DockerSandbox,
  command: Partial<SandboxCommand> & Pick<SandboxCommand, "argv" | "jobDir">,
): Promise<Outcome> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const result = await box.exec({
    phase: "run",
    env: {},
    timeoutMs: 120_000,
    ...command,
    onStdoutLine: (line) => {
      stdout.push(line);
      command.onStdoutLine?.(line);
    },
    onStderrLine: (line) => stderr.push(line),
  });
  return { result, stdout, stderr };
}

/** The last stdout line as JSON (the probes print one). */
function report(outcome: Outcome): Record<string, unknown> {
  expect(outcome.result.exitCode, outcome.stderr.join("\n")).toBe(0);
  return JSON.parse(outcome.stdout.at(-1) ?? "null");
}

const python = (code: string) => ["python3", "-c", code];

beforeAll(async () => {
  await run("docker", ["info", "--format", "{{.ServerVersion}}"]).catch((error: Error) => {
    throw new Error(`These tests need a running Docker engine: ${error.message}`);
  });
  await run("bash", [join(repoRoot, "scripts/build-python-image.sh"), IMAGE], { maxBuffer: 16 * 1024 * 1024 });
  dataDir = await mkdtemp(join(tmpdir(), "superstep-docker-sandbox-"));
  for (const [name, value] of Object.entries(serverSecrets)) {
    savedEnv[name] = process.env[name];
    process.env[name] = value;
  }
}, 900_000);

afterEach(async () => {
  const left = await containers();
  if (left.length > 0) await run("docker", ["rm", "-f", ...left]);
});

afterAll(async () => {
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  if (dataDir !== "") await rm(dataDir, { recursive: true, force: true });
});

describe("DockerSandbox", () => {
  it("gives the paths as the container sees them", () => {
    const config = importConfig();
    expect(sandbox(config).paths("/anywhere")).toEqual({
      job: "/job",
      runner: "/opt/studio-runner/runner.py",
      pipCache: "/pip-cache",
      wheels: null,
      basePython: "python3",
    });
    expect(sandbox({ ...config, wheelsDir: "/srv/wheels" }).paths("/anywhere").wheels).toBe("/wheels");
  });

  it("lets the command write only the job's source, venv and home, /tmp and the pip cache, on a read-only root", async () => {
    const config = importConfig();
    const job = await jobDir(config);
    const outcome = await execute(sandbox(config), {
      jobDir: job,
      argv: python(`
import json, os
dirs = ["/", "/usr", "/etc", "/var", "/root", "/home", "/opt/studio-runner", "/job", "/job/src", "/job/venv",
  "/job/home", "/job/runs", "/tmp", "/pip-cache"]
writable = []
for d in dirs:
    try:
        with open(os.path.join(d, "probe"), "w") as f: f.write("x")
        writable.append(d)
    except OSError:
        pass
mounts = {line.split()[1]: line.split() for line in open("/proc/self/mounts")}
print(json.dumps({"writable": writable, "root": mounts["/"][3].split(","),
  "tmp": [mounts["/tmp"][2], mounts["/tmp"][3].split(",")], "cwd": os.getcwd(),
  "runner": os.path.isfile("/opt/studio-runner/runner.py")}))`),
    });
    const seen = report(outcome);
    // Not /job itself: job.json and inspect.json there are the server's records.
    expect(seen.writable).toEqual(["/job/src", "/job/venv", "/job/home", "/tmp", "/pip-cache"]);
    expect(existsSync(join(job, "probe"))).toBe(false);
    expect(seen.root).toContain("ro");
    expect(seen.tmp).toEqual(["tmpfs", expect.arrayContaining(["rw", "nosuid", "nodev", "size=262144k"])]);
    expect(seen.cwd).toBe("/job");
    expect(seen.runner).toBe(true);
    expect(await containers()).toEqual([]);
  });

  it("runs as the server's user with no capability and no new privileges", async () => {
    const config = importConfig();
    const outcome = await execute(sandbox(config), {
      jobDir: await jobDir(config),
      argv: python(`
import json, os
status = dict(line.rstrip("\\n").split(":\\t", 1) for line in open("/proc/self/status") if ":\\t" in line)
print(json.dumps({"uid": os.getuid(), "gid": os.getgid(), "cap_eff": status["CapEff"], "cap_prm": status["CapPrm"],
  "no_new_privs": status["NoNewPrivs"]}))`),
    });
    expect(report(outcome)).toEqual({
      uid: process.getuid?.(),
      gid: process.getgid?.(),
      cap_eff: "0000000000000000",
      cap_prm: "0000000000000000",
      no_new_privs: "1",
    });
  });

  it("gives the command exactly the environment it passes, nothing of the server's", async () => {
    const config = importConfig();
    const { stdout: imageEnv } = await run("docker", ["image", "inspect", "--format", "{{json .Config.Env}}", IMAGE]);
    const imageNames = (JSON.parse(imageEnv) as string[]).map((entry) => entry.split("=")[0]);
    const env = { GREETING: "hello world", PEM: "-----BEGIN-----\nline two\n-----END-----", PATH: "/usr/bin:/bin" };
    const outcome = await execute(sandbox(config), {
      jobDir: await jobDir(config),
      env,
      argv: python("import json, os; print(json.dumps(dict(os.environ)))"),
    });
    const seen = report(outcome) as Record<string, string>;
    expect(seen).toMatchObject({ ...env, HOME: "/tmp" });
    expect(seen.JWT_SECRET).toBeUndefined();
    expect(seen.DATABASE_URL).toBeUndefined();
    const allowed = new Set([...Object.keys(env), "HOME", "HOSTNAME", ...imageNames]);
    expect(Object.keys(seen).filter((name) => !allowed.has(name))).toEqual([]);
  });

  it("streams stdout and stderr line by line, a last line without newline too", async () => {
    const config = importConfig();
    const outcome = await execute(sandbox(config), {
      jobDir: await jobDir(config),
      argv: python(
        'import sys; print("one"); print("err", file=sys.stderr); sys.stdout.write("two\\nthree"); sys.exit(3)',
      ),
    });
    expect(outcome.stdout).toEqual(["one", "two", "three"]);
    expect(outcome.stderr).toEqual(["err"]);
    expect(outcome.result).toEqual({ exitCode: 3, timedOut: false, aborted: false, outOfMemory: false });
  });

  it("stops a fork bomb at the process limit, with the container gone afterwards", async () => {
    const config = importConfig({ STUDIO_IMPORT_PIDS: "32" });
    const outcome = await execute(sandbox(config), {
      jobDir: await jobDir(config),
      // Every process forks again; the first one reports how its fork failed and ends the container.
      argv: python(`
import errno, json, os, signal
first = os.getpid()
forked = 0
while True:
    try:
        pid = os.fork()
    except OSError as error:
        if os.getpid() == first:
            print(json.dumps({"errno": errno.errorcode[error.errno], "forked": forked}), flush=True)
            os._exit(0)
        signal.pause()
    if pid != 0 and os.getpid() == first:
        forked += 1`),
    });
    const seen = report(outcome);
    expect(seen.errno).toBe("EAGAIN");
    expect(seen.forked).toBeLessThan(32);
    expect(await containers()).toEqual([]);
    // This machine still starts processes.
    await expect(run("true")).resolves.toBeDefined();
  });

  it("ends a command that allocates past the memory limit with exit 137 as out of memory", async () => {
    const config = importConfig({ STUDIO_IMPORT_MEMORY: "64m" });
    const outcome = await execute(sandbox(config), {
      jobDir: await jobDir(config),
      argv: python("chunks = []\nwhile True: chunks.append(bytearray(8 * 1024 * 1024))"),
    });
    expect(outcome.result).toEqual({ exitCode: 137, timedOut: false, aborted: false, outOfMemory: true });
    expect(stopReason(outcome.result, 120_000)).toBe("Sandbox stopped (out of memory (exit 137))");
    expect(await containers()).toEqual([]);
  });

  it("removes the container at the time limit", async () => {
    const config = importConfig();
    const outcome = await execute(sandbox(config), {
      jobDir: await jobDir(config),
      timeoutMs: 2000,
      argv: python("import time; time.sleep(3600)"),
    });
    expect(outcome.result).toMatchObject({ timedOut: true, aborted: false, outOfMemory: false });
    expect(stopReason(outcome.result, 2000)).toBe("Sandbox stopped (time limit (2s))");
    expect(await containers()).toEqual([]);
  });

  it("removes the container when the signal aborts the command", async () => {
    const config = importConfig();
    const controller = new AbortController();
    const outcome = await execute(sandbox(config), {
      jobDir: await jobDir(config),
      signal: controller.signal,
      argv: python('import time; print("waiting", flush=True); time.sleep(3600)'),
      onStdoutLine: (line) => {
        if (line === "waiting") controller.abort();
      },
    });
    expect(outcome.stdout).toEqual(["waiting"]);
    expect(outcome.result).toMatchObject({ timedOut: false, aborted: true, outOfMemory: false });
    expect(await containers()).toEqual([]);
  });

  it("does not start a command whose signal is already aborted", async () => {
    const config = importConfig();
    const outcome = await execute(sandbox(config), {
      jobDir: await jobDir(config),
      signal: AbortSignal.abort(),
      argv: python("print('never')"),
    });
    expect(outcome.result).toEqual({ exitCode: null, timedOut: false, aborted: true, outOfMemory: false });
    expect(outcome.stdout).toEqual([]);
  });

  it("does not start a command aborted while the sandbox was being prepared", async () => {
    const config = importConfig();
    const controller = new AbortController();
    const stdout: string[] = [];
    const pending = sandbox(config).exec({
      phase: "run",
      jobDir: await jobDir(config),
      argv: python("print('never')"),
      env: {},
      timeoutMs: 60_000,
      signal: controller.signal,
      onStdoutLine: (line) => stdout.push(line),
    });
    controller.abort();
    expect(await pending).toEqual({ exitCode: null, timedOut: false, aborted: true, outOfMemory: false });
    expect(stdout).toEqual([]);
    expect(await containers()).toEqual([]);
  });

  it("installs langgraph offline from the wheel directory and inspects a graph with runner.py", async () => {
    const config = { ...importConfig(), wheelsDir: await realpath(join(repoRoot, ".wheels-import")) };
    const box = sandbox(config);
    const job = await jobDir(config);
    await mkdir(join(job, "src"));
    await writeFile(
      join(job, "src/graph.py"),
      [
        "from typing import TypedDict",
        "from langgraph.graph import END, START, StateGraph",
        "class State(TypedDict):",
        "    n: int",
        "def step(state: State) -> State:",
        '    return {"n": state["n"] + 1}',
        "builder = StateGraph(State)",
        'builder.add_node("step", step)',
        'builder.add_edge(START, "step")',
        'builder.add_edge("step", END)',
        "graph = builder.compile()",
        "",
      ].join("\n"),
    );
    const paths = box.paths(job);
    const install = await execute(box, {
      phase: "install",
      jobDir: job,
      timeoutMs: 600_000,
      env: { PIP_CACHE_DIR: paths.pipCache, PIP_DISABLE_PIP_VERSION_CHECK: "1" },
      argv: [
        "sh",
        "-c",
        `${paths.basePython} -m venv ${paths.job}/venv && ${paths.job}/venv/bin/pip install --no-index --find-links ${paths.wheels} langgraph python-dotenv`,
      ],
    });
    expect(install.result.exitCode, install.stderr.join("\n")).toBe(0);
    const inspect = await execute(box, {
      phase: "inspect",
      jobDir: job,
      argv: [
        `${paths.job}/venv/bin/python`,
        paths.runner,
        "inspect",
        "--root",
        `${paths.job}/src`,
        "--graph",
        "g=./graph.py:graph",
      ],
    });
    expect(inspect.result.exitCode, inspect.stderr.join("\n")).toBe(0);
    const graph = inspect.stdout.map((line) => JSON.parse(line)).find((line) => line.type === "graph");
    expect(graph).toMatchObject({ id: "g" });
    expect(graph.nodes.map((node: { id: string }) => node.id).sort()).toEqual(["__end__", "__start__", "step"]);
    expect(await containers()).toEqual([]);
  }, 900_000);

  it("says the sandbox is unavailable when the image is not on the engine, naming it", async () => {
    const config = importConfig({ STUDIO_IMPORT_IMAGE: "superstep-no-such-image:never" });
    const error = await sandbox(config)
      .exec({ phase: "inspect", jobDir: await jobDir(config), argv: ["true"], env: {}, timeoutMs: 60_000 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      code: "IMPORT_SANDBOX_UNAVAILABLE",
      details: { image: "superstep-no-such-image:never" },
    });
    expect((error as AppError & { details: { reason: string } }).details.reason).toContain(
      "superstep-no-such-image:never",
    );
  });

  it("says the sandbox is unavailable when the Docker CLI cannot be run", async () => {
    const config = importConfig();
    const error = await sandbox(config, { docker: join(dataDir, "no-docker-here") })
      .exec({ phase: "inspect", jobDir: await jobDir(config), argv: ["true"], env: {}, timeoutMs: 60_000 })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "IMPORT_SANDBOX_UNAVAILABLE" });
  });

  it("says the sandbox is unavailable when the daemon does not answer", async () => {
    const config = importConfig();
    const hostEnv = { PATH: process.env.PATH, DOCKER_HOST: `unix://${join(dataDir, "no-daemon.sock")}` };
    const error = await sandbox(config, { hostEnv })
      .exec({ phase: "inspect", jobDir: await jobDir(config), argv: ["true"], env: {}, timeoutMs: 60_000 })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "IMPORT_SANDBOX_UNAVAILABLE" });
    expect((error as AppError & { details: { reason: string } }).details.reason).toMatch(/^Docker did not answer/);
  });
});
