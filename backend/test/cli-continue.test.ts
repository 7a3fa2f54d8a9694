// Going on with a run from the command line, through the built bin: a one-step run continued
// step by step, a Human wait answered, and the clear refusals when a run cannot go on that way.
// Tests that start several processes in turn get a wider cap than the default 30 s (a busy
// machine slows each start); none of them measures time.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, runSuperstep, type StudioProcess, startStudioProcess } from "./studio-process.js";
import { KEYS, startInTerminal, type TerminalSession } from "./terminal-session.js";
import { type Session, setupOwner, startTestStudio, type TestStudio } from "./test-studio.js";

const examples = fileURLToPath(new URL("../../examples/", import.meta.url));
const studios: TestStudio[] = [];
const processes: StudioProcess[] = [];
const terminals: TerminalSession[] = [];
const dirs: string[] = [];

const SLOW = { timeout: 120_000 };

beforeAll(assertBuilt);

afterEach(async () => {
  for (const terminal of terminals.splice(0)) terminal.kill();
  await Promise.all(processes.splice(0).map((p) => p.stop()));
  await Promise.all(studios.splice(0).map((s) => s.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A studio database with an owner account, where `superstep run` records its runs. */
async function ownedStudio(): Promise<{ studio: TestStudio; owner: Session; env: Record<string, string> }> {
  const studio = await startTestStudio();
  studios.push(studio);
  expect(studio.config.databaseUrl).toBeNull();
  const owner = await setupOwner(studio);
  return { studio, owner, env: { STUDIO_DATA_DIR: studio.config.dataDir } };
}

async function runView(studio: TestStudio, owner: Session, id: string) {
  const response = await studio.app.inject({ method: "GET", url: `/api/runs/${id}`, headers: owner.auth });
  expect(response.statusCode).toBe(200);
  return response.json().data as { status: string; trigger: string; state: Record<string, unknown> };
}

function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The arguments of a printed `STUDIO_DATA_DIR=… superstep run …` command (no quoting in these). */
function argsOf(command: string, dataDir: string): string[] {
  const prefix = `STUDIO_DATA_DIR=${dataDir} superstep `;
  expect(command.startsWith(prefix), command).toBe(true);
  return command.slice(prefix.length).split(" ");
}

describe("superstep run --continue", () => {
  it("continues a one-step run recorded in the studio, step by step, until it ends ok", SLOW, async () => {
    const { studio, owner, env } = await ownedStudio();
    const first = runSuperstep(["run", join(examples, "fan-out-join.json"), "--step", "--json"], env);
    expect(first.status, first.stderr).toBe(3);
    let lines = jsonLines(first.stdout);
    let summary = lines.at(-1) as Record<string, unknown>;
    const runId = summary.run_id as string;
    expect(summary).toMatchObject({ recorded: true, status: "paused" });
    expect(summary.continue_with).toBe(
      `STUDIO_DATA_DIR=${env.STUDIO_DATA_DIR} superstep run --continue ${runId} --json`,
    );
    let lastSeq = (lines.at(-2) as { seq: number }).seq;

    // Run exactly the printed command until the run ends.
    let steps = 1;
    while (summary.status === "paused") {
      expect(steps).toBeLessThan(10);
      const next = runSuperstep(argsOf(summary.continue_with as string, env.STUDIO_DATA_DIR as string), env);
      lines = jsonLines(next.stdout);
      summary = lines.at(-1) as Record<string, unknown>;
      expect(next.status, next.stderr).toBe(summary.status === "ok" ? 0 : 3);
      expect(summary.run_id).toBe(runId);
      // The events go on with the same run: seq continues where the last turn stopped.
      expect((lines[0] as { seq: number; type: string }).seq).toBe(lastSeq + 1);
      expect(lines[0]).toMatchObject({ type: "run_started", data: { resumed: true } });
      lastSeq = (lines.at(-2) as { seq: number }).seq;
      steps++;
    }
    expect(steps).toBe(3);
    expect(summary).toMatchObject({ status: "ok", state: { summary: "9 words, 35 letters" } });
    expect(summary).not.toHaveProperty("continue_with");
    expect(await runView(studio, owner, runId)).toMatchObject({ status: "ok", trigger: "cli" });
  });

  it("continues while a studio serves the same database: the run's lease is free between steps", SLOW, async () => {
    const dir = mkdtempSync(join(tmpdir(), "superstep-cli-"));
    dirs.push(dir);
    const env = { STUDIO_DATA_DIR: dir };
    const studio = await startStudioProcess(env);
    processes.push(studio);
    const setup = await fetch(`${studio.url}/api/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "owner@example.com", password: "owner-password" }),
    });
    const { token } = ((await setup.json()) as { data: { token: string } }).data;
    let summary = jsonLines(
      runSuperstep(["run", join(examples, "fan-out-join.json"), "--step", "--json"], env).stdout,
    ).at(-1) as Record<string, unknown>;
    const runId = summary.run_id as string;
    for (let steps = 1; summary.status === "paused"; steps++) {
      expect(steps).toBeLessThan(10);
      const next = runSuperstep(argsOf(summary.continue_with as string, dir), env);
      summary = jsonLines(next.stdout).at(-1) as Record<string, unknown>;
      expect(next.status, next.stderr).toBe(summary.status === "ok" ? 0 : 3);
    }
    expect(summary.status).toBe("ok");
    const seen = await fetch(`${studio.url}/api/runs/${runId}`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await seen.json()) as { data: object }).data).toMatchObject({
      status: "ok",
      trigger: "cli",
      mode: "step",
      state: { summary: "9 words, 35 letters" },
    });
  });

  it("prints the command on a readable run too", SLOW, async () => {
    const { env } = await ownedStudio();
    const result = runSuperstep(["run", join(examples, "fan-out-join.json"), "--step"], env);
    expect(result.status).toBe(3);
    const runId = /Recorded in the studio as run (\S+) /.exec(result.stdout)?.[1];
    expect(runId).toBeDefined();
    expect(result.stdout).toContain(`State (paused):`);
    expect(result.stdout).toContain(
      `Continue with: STUDIO_DATA_DIR=${env.STUDIO_DATA_DIR} superstep run --continue ${runId}\n`,
    );
    const next = runSuperstep(["run", "--continue", runId as string], env);
    expect(next.status, next.stderr).toBe(3);
    expect(next.stdout).toContain(`▶ run ${runId} resumed (one step)`);
    expect(next.stdout).toContain("✓ both");
  });
});

describe("superstep run --resume", () => {
  it("answers a run waiting at a Human node, refusing an answer that does not fit the form", SLOW, async () => {
    const { studio, owner, env } = await ownedStudio();
    const waiting = runSuperstep(
      ["run", join(examples, "triage.json"), "--input", '{"message": "urgent: refund"}', "--json"],
      env,
    );
    expect(waiting.status, waiting.stderr).toBe(3);
    const summary = jsonLines(waiting.stdout).at(-1) as Record<string, unknown>;
    const runId = summary.run_id as string;
    expect(summary).toMatchObject({ recorded: true, status: "waiting", waiting: { node_id: "approve" } });
    expect(summary.continue_with).toBe(
      `STUDIO_DATA_DIR=${env.STUDIO_DATA_DIR} superstep run --resume ${runId} --input '{"approved":false,"note":""}' --json`,
    );

    const wrong = runSuperstep(["run", "--resume", runId, "--input", '{"approved": "yes"}'], env);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain("the answer does not fit the form:\n  ✗ approved: must be a boolean");
    expect((await runView(studio, owner, runId)).status).toBe("waiting");

    const answered = runSuperstep(["run", "--resume", runId, "--input", '{"approved": true}', "--json"], env);
    expect(answered.status, answered.stderr).toBe(0);
    const done = jsonLines(answered.stdout).at(-1);
    expect(done).toMatchObject({
      run_id: runId,
      status: "ok",
      state: { approval: { approved: true }, reply: "Thanks for your message, we will get back to you right away." },
    });
    expect((await runView(studio, owner, runId)).status).toBe("ok");
  });

  it("prints the form and an answer to edit on a readable run", async () => {
    const { env } = await ownedStudio();
    const result = runSuperstep(["run", join(examples, "triage.json"), "--input", '{"message": "urgent"}'], env);
    expect(result.status).toBe(3);
    const runId = /Recorded in the studio as run (\S+) /.exec(result.stdout)?.[1] as string;
    expect(result.stdout).toContain(
      `Answer with: STUDIO_DATA_DIR=${env.STUDIO_DATA_DIR} superstep run --resume ${runId} --input '{"approved":false,"note":""}'\n` +
        "  (put the person's answer in; the form: approved (boolean, required), note (string))",
    );
  });
});

describe("going on with a run that cannot go on that way", () => {
  // One studio with a paused, a waiting and an ended run, shared by the cases below.
  let shared: { studio: TestStudio; env: Record<string, string>; paused: string; waiting: string; ended: string };

  beforeAll(async () => {
    const studio = await startTestStudio();
    await setupOwner(studio);
    const env = { STUDIO_DATA_DIR: studio.config.dataDir };
    const idOf = (args: string[], status: string) => {
      const summary = jsonLines(runSuperstep(["run", ...args, "--json"], env).stdout).at(-1) as {
        run_id: string;
        status: string;
      };
      expect(summary.status).toBe(status);
      return summary.run_id;
    };
    shared = {
      studio,
      env,
      paused: idOf([join(examples, "fan-out-join.json"), "--step"], "paused"),
      waiting: idOf([join(examples, "triage.json"), "--input", '{"message": "urgent"}'], "waiting"),
      ended: idOf([join(examples, "hello.json")], "ok"),
    };
  });

  afterAll(() => shared.studio.close());

  type Case = [string, (ids: typeof shared) => string[], (ids: typeof shared) => string];
  const cases: Case[] = [
    ["an unknown run id", () => ["--continue", "no-such-run"], () => "no run no-such-run in the studio's database"],
    [
      "--continue on a waiting run",
      (r) => ["--continue", r.waiting],
      (r) =>
        `run ${r.waiting} is waiting, not paused: it waits for a person at approve: answer it with: STUDIO_DATA_DIR=${r.env.STUDIO_DATA_DIR} superstep run --resume ${r.waiting} --input`,
    ],
    [
      "--resume on a paused run",
      (r) => ["--resume", r.paused, "--input", "{}"],
      (r) =>
        `run ${r.paused} is paused, not waiting: it is paused: continue it with: STUDIO_DATA_DIR=${r.env.STUDIO_DATA_DIR} superstep run --continue ${r.paused}`,
    ],
    [
      "--resume on an ended run",
      (r) => ["--resume", r.ended, "--input", "{}"],
      (r) => `run ${r.ended} is ok, not waiting: it has ended`,
    ],
    [
      "--continue on an ended run",
      (r) => ["--continue", r.ended],
      (r) => `run ${r.ended} is ok, not paused: it has ended`,
    ],
    [
      "--resume without an answer",
      (r) => ["--resume", r.waiting],
      () => "--resume needs --input JSON (or --input-file), the answer to the form: approved",
    ],
    [
      "an answer that is not JSON",
      (r) => ["--resume", r.waiting, "--input", "{oops"],
      () => "--input is not valid JSON",
    ],
    ["--continue with an input", (r) => ["--continue", r.paused, "--input", "{}"], () => "--continue takes no input"],
    ["--continue with --step", (r) => ["--continue", r.paused, "--step"], () => "--step applies to a new run only"],
    ["--continue with a FILE", (r) => ["--continue", r.paused, join(examples, "hello.json")], () => "give no FILE"],
    [
      "--continue with --resume",
      (r) => ["--continue", r.paused, "--resume", r.waiting],
      () => "cannot be used together",
    ],
  ];

  it.each(cases)("refuses %s with exit code 2 and says why", (_name, args, message) => {
    const result = runSuperstep(["run", ...args(shared)], shared.env);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain(message(shared));
  });

  it("leaves the runs as they were", async () => {
    const owner = (await shared.studio.container.auth.ownerActor()) as NonNullable<
      Awaited<ReturnType<TestStudio["container"]["auth"]["ownerActor"]>>
    >;
    const statuses = await Promise.all(
      [shared.paused, shared.waiting, shared.ended].map(
        async (id) => (await shared.studio.container.runs.get(owner, id)).status,
      ),
    );
    expect(statuses).toEqual(["paused", "waiting", "ok"]);
  });
});

describe("runs kept in memory", () => {
  it("says plainly that a run kept in memory cannot be continued later, and why", SLOW, () => {
    const dir = mkdtempSync(join(tmpdir(), "superstep-cli-"));
    dirs.push(dir);
    const env = { STUDIO_DATA_DIR: dir };
    const noDatabase = runSuperstep(["run", join(examples, "fan-out-join.json"), "--step", "--json"], env);
    expect(noDatabase.status).toBe(3);
    expect(jsonLines(noDatabase.stdout).at(-1)).toMatchObject({
      recorded: false,
      not_recorded_because: `the studio has no database yet at ${join(dir, "superstep.db")}; start the studio (superstep start) and create the owner account`,
      status: "paused",
      continue_with: null,
    });
    expect(noDatabase.stderr).toContain(
      "superstep: this run cannot be continued later: it was kept in memory only, because the studio has no database yet",
    );
    const readable = runSuperstep(["run", join(examples, "triage.json"), "--input", '{"message": "urgent"}'], env);
    expect(readable.status).toBe(3);
    expect(readable.stdout).toContain("Not recorded in the studio: the studio has no database yet");
    expect(readable.stderr).toContain("this run cannot be continued later");

    const goOn = runSuperstep(["run", "--continue", "some-run"], env);
    expect(goOn.status).toBe(2);
    expect(goOn.stderr).toContain(
      "cannot go on with run some-run: only runs recorded in the studio's database can be continued or answered later, and the studio has no database yet",
    );
  });

  it("names --no-record and a database without an owner as the reasons", SLOW, async () => {
    const studio = await startTestStudio();
    studios.push(studio);
    const env = { STUDIO_DATA_DIR: studio.config.dataDir };
    const noOwner = runSuperstep(["run", join(examples, "hello.json"), "--json"], env);
    expect(jsonLines(noOwner.stdout).at(-1)).toMatchObject({
      recorded: false,
      not_recorded_because:
        "the studio's database has no owner account yet; create it in the studio (POST /api/auth/setup)",
    });
    await setupOwner(studio);
    const asked = runSuperstep(["run", join(examples, "hello.json"), "--json", "--no-record"], env);
    expect(jsonLines(asked.stdout).at(-1)).toMatchObject({
      recorded: false,
      not_recorded_because: "--no-record was given",
    });
    expect(asked.stderr).toBe("");
  });
});

describe("superstep run --workflows", () => {
  it("says on stderr and in the summary that the run is not recorded, and why", async () => {
    const { env } = await ownedStudio();
    const result = runSuperstep(
      ["run", join(examples, "subgraph.json"), "--workflows", join(examples, "workflows"), "--json"],
      env,
    );
    expect(result.status, result.stderr).toBe(0);
    const reason =
      "--workflows takes subgraphs from files, and a run recorded in the studio takes them from the studio's saved workflows";
    expect(result.stderr).toContain(`superstep: this run is not recorded in the studio: ${reason}.`);
    expect(jsonLines(result.stdout).at(-1)).toMatchObject({
      recorded: false,
      not_recorded_because: reason,
      status: "ok",
    });
  });
});

describe("on a terminal", () => {
  it("stops at a question on Ctrl+C with exit code 130, and the recorded run can be answered later", SLOW, async () => {
    const { studio, owner, env } = await ownedStudio();
    const terminal = startInTerminal(["run", join(examples, "triage.json"), "--input", '{"message": "urgent"}'], env);
    terminals.push(terminal);
    await terminal.waitFor(/approved \* \(boolean\): /);
    terminal.type(KEYS.ctrlC);
    expect(await terminal.exited).toBe(130);
    const runId = /run (\S+) is still waiting; go on later with: /.exec(terminal.output())?.[1] as string;
    expect(terminal.output()).toContain(
      `stopped at a question; run ${runId} is still waiting; go on later with: STUDIO_DATA_DIR=${env.STUDIO_DATA_DIR} superstep run --resume ${runId} --input`,
    );
    expect((await runView(studio, owner, runId)).status).toBe("waiting");

    // Answered on a terminal: --resume without --input asks the form.
    const answering = startInTerminal(["run", "--resume", runId], env);
    terminals.push(answering);
    await answering.waitFor(/approved \* \(boolean\): /);
    answering.type(`yes${KEYS.enter}`);
    await answering.waitFor(/note \(string\): /);
    answering.type(`fine${KEYS.enter}`);
    expect(await answering.exited).toBe(0);
    expect(answering.output()).toContain("Final state (ok):");
    expect((await runView(studio, owner, runId)).state).toMatchObject({ approval: { approved: true, note: "fine" } });
  });

  it("stops between steps on Ctrl+D with exit code 130; an in-memory run says it ends there", SLOW, async () => {
    const dir = mkdtempSync(join(tmpdir(), "superstep-cli-"));
    dirs.push(dir);
    const terminal = startInTerminal(["run", join(examples, "fan-out-join.json"), "--step"], { STUDIO_DATA_DIR: dir });
    terminals.push(terminal);
    await terminal.waitFor(/press Enter for the next step/);
    terminal.type(KEYS.enter);
    const firstPrompt = terminal.output().length;
    await terminal.waitFor(/press Enter for the next step/, firstPrompt);
    terminal.type(KEYS.ctrlD);
    expect(await terminal.exited).toBe(130);
    expect(terminal.output()).toContain("✓ both");
    expect(terminal.output()).toContain("stopped at a question; the run was kept in memory only and ends here");
  });
});
