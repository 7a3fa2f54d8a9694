// The check step against the real runner.py and langgraph: the job's venv is the runner's own
// test venv (.venv-runner) behind a small launcher, so no install is needed here.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { RUNNER_PATH } from "../../engine/sandbox/container/import-sandbox-factory.js";
import { SubprocessSandbox } from "../../engine/sandbox/container/subprocess-sandbox.js";
import { runCheckStep } from "./check-step.js";

const RUNNER_VENV_PYTHON = fileURLToPath(new URL("../../../../.venv-runner/bin/python", import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function jobWith(files: Record<string, string>): string {
  const job = mkdtempSync(join(tmpdir(), "superstep-check-step-"));
  dirs.push(job);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(job, "src", name, ".."), { recursive: true });
    writeFileSync(join(job, "src", name), text);
  }
  mkdirSync(join(job, "venv/bin"), { recursive: true });
  writeFileSync(join(job, "venv/bin/python"), `#!/bin/sh\nexec "${RUNNER_VENV_PYTHON}" "$@"\n`);
  chmodSync(join(job, "venv/bin/python"), 0o755);
  return job;
}

const sandbox = new SubprocessSandbox({
  runnerPath: RUNNER_PATH,
  importDir: tmpdir(),
  wheelsDir: null,
  python: "python3",
});
const GRAPH =
  "from langgraph.graph import StateGraph\n\ndef a(s):\n    return s\n\nb = StateGraph(dict)\nb.add_node('a', a)\nb.add_edge('__start__', 'a')\ngraph = b.compile()\n";

describe("check step", () => {
  it("marks every graph the time limit left without a line as timeout", async () => {
    // The first graph never finishes loading, so the limit ends the runner before any line.
    const job = jobWith({ "fast.py": GRAPH, "slow.py": "import time\ntime.sleep(600)\n" });
    const result = await runCheckStep({
      sandbox,
      jobDir: job,
      sourceRoot: "src",
      graphs: [
        { id: "slow", spec: "./slow.py:graph" },
        { id: "after", spec: "./fast.py:graph" },
      ],
      env: {},
      timeoutMs: 3000,
      signal: new AbortController().signal,
      log: () => undefined,
    });
    for (const id of ["slow", "after"])
      expect(result.inspected.get(id)).toEqual({
        ok: false,
        kind: "timeout",
        stage: null,
        error_type: null,
        message: "inspection stopped at the time limit (3s, STUDIO_INSPECT_TIMEOUT)",
        variables: [],
        location: null,
      });
    expect(result.lines).toEqual({});
  });

  it("answers a graph id the runner cannot take without running it, and checks the others", async () => {
    const job = jobWith({ "g.py": GRAPH });
    const log: string[] = [];
    const result = await runCheckStep({
      sandbox,
      jobDir: job,
      sourceRoot: "src",
      graphs: [
        { id: "a=b", spec: "./g.py:graph" },
        { id: "with space", spec: "./g.py:graph" },
      ],
      env: {},
      timeoutMs: 120_000,
      signal: new AbortController().signal,
      log: (line) => log.push(line),
    });
    expect(result.inspected.get("a=b")).toMatchObject({
      ok: false,
      kind: "exception",
      message: expect.stringContaining("'='"),
    });
    expect(result.inspected.get("with space")).toMatchObject({ ok: true, nodes: 3, edges: 2 });
    expect(log).toContain("graph with space: loaded (3 nodes, 2 edges, 0 conditional)");
  });
});
