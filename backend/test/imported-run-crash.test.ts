// An imported run whose server dies right after a checkpoint: the studio process is killed with
// SIGKILL once the checkpoint holding the first node's result is committed, another process is
// started on the same database, takes the run over and continues it in a new sandbox from that
// checkpoint, without running the finished node again (the graph counts its runs in a file).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TEST_PAUSE_MARKER } from "../src/engine/runtime/test-pause.js";
import { ownImportedJob, TWO_NODE_GRAPH, writeImportedJob } from "./imported-job.js";
import { call, type StudioApi, waitForStatus } from "./studio-api.js";
import { openStudioEnv, type StudioEnv } from "./studio-env.js";
import { assertBuilt, reapStudioProcesses, startStudioProcess } from "./studio-process.js";

// TWO_NODE_GRAPH, and each runner process notes its pid so that the test can stop the one the
// killed server left behind (it runs in its own process group).
const GRAPH = TWO_NODE_GRAPH.replace(
  "\nclass State(TypedDict):",
  `
import os

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pids"), "a") as pids:
    pids.write(f"{os.getpid()}\\n")

class State(TypedDict):`,
);

describe("an imported run across a crash of its server", () => {
  let env: StudioEnv;
  let jobDir = "";

  beforeAll(() => assertBuilt());
  afterEach(async () => {
    await reapStudioProcesses();
    // Runner processes a killed server left behind (their own process groups).
    let pids: string[] = [];
    try {
      pids = readFileSync(join(jobDir, "pids"), "utf8").split("\n").filter(Boolean);
    } catch {}
    for (const pid of pids) {
      try {
        process.kill(-Number(pid), "SIGKILL");
      } catch {}
    }
  });
  afterAll(async () => {
    await env?.close();
  });

  it("continues from the checkpoint in a new sandbox, running the finished node once", async () => {
    env = await openStudioEnv("imported-crash", {
      STUDIO_IMPORT_RUNTIME: "subprocess",
      // The killed process's lease must expire before the restarted one takes its run over.
      STUDIO_RUN_LEASE_TTL: "2",
    });
    const importDir = join(env.dataDir, "imports");
    const job = writeImportedJob(importDir, "crash", { "graph.py": GRAPH });
    jobDir = job.jobDir;
    const first = await startStudioProcess({ ...env.env, STUDIO_TEST_PAUSE_AT: "checkpoint:step_one" });
    const api: StudioApi = { base: first.url, token: "" };
    const setup = await call(api, "POST", "/api/auth/setup", {
      email: "owner@example.com",
      password: "owner-password",
    });
    api.token = String(setup.body.data.token);
    ownImportedJob(importDir, job.jobId, String((await call(api, "GET", "/api/auth/me")).body.data.id));
    const key = String((await call(api, "POST", "/api/api-keys", { name: "hooks" })).body.data.key);
    const saved = await call(api, "POST", "/api/workflows", job.document(["step one", "step two"]));
    expect(saved.status).toBe(201);
    const started = await call(
      api,
      "POST",
      `/api/hooks/workflows/${saved.body.data.id}/runs`,
      { input: { n: 2 } },
      key,
    );
    expect(started.status).toBe(202);
    const run = { id: String(started.body.data.run_id) };
    await first.untilOutput("the pause after step one's checkpoint", (output) =>
      output.includes(`${TEST_PAUSE_MARKER} checkpoint:step_one run=${run.id}`),
    );
    await first.kill();
    expect(job.count("one")).toBe(1);

    const second = await startStudioProcess(env.env);
    const ended = await waitForStatus({ ...api, base: second.url }, run.id, ["ok", "error", "cancelled"], 90_000);
    expect(ended).toMatchObject({ status: "ok", state: { n: 6 }, error: null });
    expect(job.count("one")).toBe(1);
    const events = (await call({ ...api, base: second.url }, "GET", `/api/runs/${run.id}/events`)).body
      .data as unknown as { type: string; node_id?: string; data: Record<string, unknown> }[];
    const resumed = events.filter((event) => event.type === "run_started").at(-1);
    expect(resumed?.data.resumed).toBe(true);
    const afterResume = events.slice(events.indexOf(resumed as (typeof events)[number]));
    expect(afterResume.filter((event) => event.type === "node_started").map((event) => event.node_id)).toEqual([
      "step_two",
    ]);
  });
});
