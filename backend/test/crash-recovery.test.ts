// Near exactly-once across a crash: the studio process is killed with SIGKILL in the middle of a
// later node, started again, and the run ends ok with every finished node's call received once.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { approvalWorkflow, edge, httpTool, type Receiver, startReceiver } from "./engine-harness.js";
import { call, type StudioApi, waitForStatus } from "./studio-api.js";
import { assertBuilt, reapStudioProcesses, type StudioProcess, startStudioProcess } from "./studio-process.js";
import { testDatabaseEnv } from "./test-database.js";

interface Api extends StudioApi {
  key: string;
}

describe("crash recovery", () => {
  let receiver: Receiver;
  let killAt: string | null = null;
  let studio: StudioProcess | null = null;
  // The state of an uncrashed run of the same workflow.
  let reference: unknown;
  const dirs: string[] = [];

  beforeAll(async () => {
    assertBuilt();
    // Deterministic answers, so a crashed run's final state can equal an uncrashed one's.
    receiver = await startReceiver((request) => {
      if (killAt !== null && request.path === killAt) {
        killAt = null;
        studio?.child.kill("SIGKILL");
        return { hold: true };
      }
      return { json: { path: request.path, got: request.body } };
    });
  });
  // Every studio a test started is gone before the next test, whatever happened in it.
  afterEach(() => reapStudioProcesses());
  afterAll(async () => {
    await reapStudioProcesses();
    await receiver.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    for (const database of databases) await database.drop();
  });

  const workflow = () => ({
    name: "three calls",
    state: [
      { name: "a", type: "any" },
      { name: "b", type: "any" },
      { name: "c", type: "any" },
    ],
    nodes: [
      httpTool("t1", `${receiver.url}/first`, "a"),
      httpTool("t2", `${receiver.url}/second`, "b", { body: { from: "{{state.a.path}}" } }),
      httpTool("t3", `${receiver.url}/third`, "c", { body: { from: "{{state.b.path}}" } }),
    ],
    edges: [edge("start", "t1"), edge("t1", "t2"), edge("t2", "t3")],
  });

  const databases: { drop(): Promise<void> }[] = [];
  let databaseEnv: Record<string, string> = {};

  async function startStudio(dataDir: string): Promise<Api> {
    studio = await startStudioProcess({
      STUDIO_DATA_DIR: dataDir,
      STUDIO_LOG_FORMAT: "json",
      STUDIO_EGRESS_ALLOW: "127.0.0.1",
      // The killed process's lease must expire before the restarted one takes its run over.
      STUDIO_RUN_LEASE_TTL: "2",
      ...databaseEnv,
    });
    return { base: studio.url, token: "", key: "" };
  }

  async function prepare(): Promise<{ api: Api; dataDir: string; workflowId: string }> {
    const dataDir = mkdtempSync(join(tmpdir(), "superstep-crash-"));
    dirs.push(dataDir);
    // On the postgres project each studio gets its own new database.
    const database = await testDatabaseEnv();
    databases.push(database);
    databaseEnv = database.env;
    const api = await startStudio(dataDir);
    const setup = await fetch(`${api.base}/api/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "owner@example.com", password: "owner-password" }),
    });
    api.token = ((await setup.json()) as { data: { token: string } }).data.token;
    api.key = String((await call(api, "POST", "/api/api-keys", { name: "hooks" })).body.data.key);
    const workflowId = String((await call(api, "POST", "/api/workflows", workflow())).body.data.id);
    return { api, dataDir, workflowId };
  }

  it("an uncrashed run gives the reference state", async () => {
    const { api, workflowId } = await prepare();
    const runId = String(
      (await call(api, "POST", `/api/hooks/workflows/${workflowId}/runs`, {}, api.key)).body.data.run_id,
    );
    const run = await waitForStatus(api, runId, ["ok", "error"]);
    expect(run.status).toBe("ok");
    reference = run.state;
    await studio?.stop();
  });

  it.each(["/second", "/third"])("continues after a SIGKILL during %s, repeating no finished call", async (path) => {
    const { api, dataDir, workflowId } = await prepare();
    const before = receiver.requests.length;
    killAt = path;
    const runId = String(
      (await call(api, "POST", `/api/hooks/workflows/${workflowId}/runs`, {}, api.key)).body.data.run_id,
    );
    await studio?.exited;

    const restarted = await startStudio(dataDir);
    restarted.token = api.token;
    const run = await waitForStatus(restarted, runId, ["ok", "error", "cancelled"], 60_000);
    expect(run.status).toBe("ok");
    expect(run.state).toEqual(reference);

    const mine = receiver.requests.slice(before).filter((r) => r.headers["x-studio-run-id"] === runId);
    const counts = new Map<string, number>();
    for (const r of mine)
      counts.set(String(r.headers["idempotency-key"]), (counts.get(String(r.headers["idempotency-key"])) ?? 0) + 1);
    // Finished before the crash: received exactly once. In flight at the crash: may run again, same key.
    const finishedBefore = path === "/second" ? ["t1"] : ["t1", "t2"];
    for (const node of finishedBefore) expect(counts.get(`${runId}:${node}:0`), node).toBe(1);
    expect(counts.get(`${runId}:${path === "/second" ? "t2" : "t3"}:0`)).toBe(2);
    const attempts = mine.filter((r) => r.path === path).map((r) => r.headers["x-studio-attempt"]);
    expect(attempts).toEqual(["1", "2"]);
    await studio?.stop();
  });

  it("keeps a waiting run across a restart and resumes it with the answer", async () => {
    const { api, dataDir } = await prepare();
    const approval = approvalWorkflow();
    const workflowId = String((await call(api, "POST", "/api/workflows", approval)).body.data.id);
    const runId = String(
      (await call(api, "POST", `/api/hooks/workflows/${workflowId}/runs`, {}, api.key)).body.data.run_id,
    );
    expect((await waitForStatus(api, runId, ["waiting"])).status).toBe("waiting");
    await studio?.kill();

    const restarted = await startStudio(dataDir);
    restarted.token = api.token;
    expect((await call(restarted, "GET", `/api/runs/${runId}`)).body.data.status).toBe("waiting");
    const resumed = await call(restarted, "POST", `/api/runs/${runId}/resume`, { input: { ok: true } });
    expect(resumed.status).toBe(200);
    const run = await waitForStatus(restarted, runId, ["ok", "error"]);
    expect(run).toMatchObject({ status: "ok", state: { answer: { ok: true } } });
    await studio?.stop();
  });
});
