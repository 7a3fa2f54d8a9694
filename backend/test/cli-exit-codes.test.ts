// The exit-code table (backend/src/cli/exit-codes.ts), code by code, through the built bin.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/cli/exit-codes.js";
import { assertBuilt, runSuperstep, type StudioProcess, startStudioProcess } from "./studio-process.js";
import { KEYS, startInTerminal, type TerminalSession } from "./terminal-session.js";

const examples = fileURLToPath(new URL("../../examples/", import.meta.url));
const dirs: string[] = [];
const studios: StudioProcess[] = [];
const terminals: TerminalSession[] = [];

// Each case starts the command several times; a busy machine slows each start (nothing here measures time).
const SLOW = { timeout: 120_000 };

beforeAll(assertBuilt);

afterEach(async () => {
  for (const terminal of terminals.splice(0)) terminal.kill();
  await Promise.all(studios.splice(0).map((s) => s.stop()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "superstep-exit-"));
  dirs.push(dir);
  return dir;
}

function workflowFile(document: unknown): string {
  const file = join(tempDir(), "workflow.json");
  writeFileSync(file, JSON.stringify(document));
  return file;
}

// Every run below is in memory: no studio database in a fresh data dir.
const env = () => ({ STUDIO_DATA_DIR: tempDir() });

describe("exit codes", () => {
  it("0: a valid workflow, a run that ends ok, help", SLOW, () => {
    expect(runSuperstep(["validate", join(examples, "hello.json")], env()).status).toBe(EXIT.OK);
    expect(runSuperstep(["run", join(examples, "hello.json")], env()).status).toBe(EXIT.OK);
    expect(runSuperstep(["help"], env()).status).toBe(EXIT.OK);
    expect(EXIT.OK).toBe(0);
  });

  it("1: the same invalid document for validate and run, and input that does not fit", SLOW, () => {
    const broken = workflowFile({ name: "broken", nodes: [], edges: [{ id: "e", source: "start", target: "ghost" }] });
    const validate = runSuperstep(["validate", broken], env());
    const run = runSuperstep(["run", broken], env());
    expect([validate.status, run.status]).toEqual([EXIT.INVALID, EXIT.INVALID]);
    expect(validate.stderr).toContain("EDGE_TARGET_UNKNOWN");
    expect(run.stderr).toContain("the workflow is not valid");
    expect(run.stderr).toContain("EDGE_TARGET_UNKNOWN");
    const badInput = runSuperstep(["run", join(examples, "triage.json"), "--input", '{"nope": 1}'], env());
    expect(badInput.status).toBe(EXIT.INVALID);
    expect(badInput.stderr).toContain("the input does not fit");
    expect(EXIT.INVALID).toBe(1);
  });

  it("2: bad arguments, an unreadable file, bad JSON, a bad setting", SLOW, () => {
    const cases: [string[], Record<string, string>, string][] = [
      [["launch"], {}, 'unknown command "launch"'],
      [[], {}, "Usage: superstep <command>"],
      [["run", join(examples, "hello.json"), "--bogus"], {}, "Unknown option '--bogus'"],
      [["validate"], {}, "usage: superstep validate FILE"],
      [["run", "/nonexistent/workflow.json"], {}, "cannot read /nonexistent/workflow.json: ENOENT"],
      [["run", join(examples, "hello.json"), "--input", "{oops"], {}, "--input is not valid JSON"],
      [["validate", join(examples, "hello.json")], { STUDIO_MAX_SUBGRAPH_DEPTH: "many" }, "STUDIO_MAX_SUBGRAPH_DEPTH"],
    ];
    for (const [args, extra, message] of cases) {
      const result = runSuperstep(args, { ...env(), ...extra });
      expect(result.status, args.join(" ")).toBe(EXIT.USAGE);
      expect(`${result.stdout}${result.stderr}`, args.join(" ")).toContain(message);
    }
    expect(EXIT.USAGE).toBe(2);
  });

  it("3: a run that waits for a person, or is paused after a step", SLOW, () => {
    const waiting = runSuperstep(["run", join(examples, "triage.json"), "--input", '{"message": "urgent"}'], env());
    expect(waiting.status).toBe(EXIT.WAITING);
    expect(waiting.stdout).toContain("waiting for a person at approve");
    const paused = runSuperstep(["run", join(examples, "fan-out-join.json"), "--step"], env());
    expect(paused.status).toBe(EXIT.WAITING);
    expect(paused.stdout).toContain("State (paused)");
    expect(EXIT.WAITING).toBe(3);
  });

  it("4: a run that ends without success", SLOW, () => {
    // An HTTP tool to a loopback address the egress policy refuses: the node fails, nothing is sent.
    const failing = workflowFile({
      name: "fails",
      state: [{ name: "out", type: "any" }],
      nodes: [
        {
          id: "call",
          type: "tool",
          position: { x: 0, y: 0 },
          data: { kind: "http", url: "http://127.0.0.1:8/never", output_field: "out" },
        },
      ],
      edges: [{ id: "e", source: "start", target: "call" }],
    });
    const result = runSuperstep(["run", failing, "--json"], env());
    expect(result.status, result.stderr).toBe(EXIT.RUN_FAILED);
    const summary = JSON.parse(result.stdout.trim().split("\n").at(-1) as string);
    expect(summary.status).toBe("error");
    expect(result.stdout).toContain("EGRESS_REFUSED");
    expect(EXIT.RUN_FAILED).toBe(4);
  });

  it("5: the command cannot do its work (a port in use, a database that does not answer)", SLOW, async () => {
    const first = await startStudioProcess({ STUDIO_DATA_DIR: tempDir() });
    studios.push(first);
    const port = new URL(first.url).port;
    const taken = runSuperstep(["start"], { ...env(), STUDIO_PORT: port });
    expect(taken.status).toBe(EXIT.FAILED);
    expect(taken.stderr).toContain(`127.0.0.1:${port} is already in use`);
    // Port 9 on loopback: nothing listens there, so the connection is refused at once.
    const noDatabase = runSuperstep(["migrate"], {
      ...env(),
      DATABASE_URL: "postgres://superstep@127.0.0.1:9/superstep",
    });
    expect(noDatabase.status).toBe(EXIT.FAILED);
    expect(noDatabase.stderr).toContain("ECONNREFUSED");
    expect(EXIT.FAILED).toBe(5);
  });

  it("130: stopped at a question with Ctrl+D", SLOW, async () => {
    const terminal = startInTerminal(["run", join(examples, "triage.json"), "--input", '{"message": "urgent"}'], env());
    terminals.push(terminal);
    await terminal.waitFor(/approved \* \(boolean\): /);
    terminal.type(KEYS.ctrlD);
    expect(await terminal.exited).toBe(EXIT.INTERRUPTED);
    expect(terminal.output()).toContain("stopped at a question; the run was kept in memory only and ends here");
    expect(EXIT.INTERRUPTED).toBe(130);
  });
});
