// The `superstep` command as a user runs it: the built bin, a real process, a real socket.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  assertBuilt,
  reapStudioProcesses,
  runSuperstep,
  type StudioProcess,
  startStudioProcess,
} from "./studio-process.js";

const examples = fileURLToPath(new URL("../../examples/", import.meta.url));
const dirs: string[] = [];

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "superstep-cli-"));
  dirs.push(dir);
  return dir;
}

function start(env: Record<string, string>): Promise<StudioProcess> {
  return startStudioProcess(env);
}

beforeAll(assertBuilt);

afterEach(async () => {
  // A studio a test did not stop itself is killed, whatever happened in the test.
  await reapStudioProcesses();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("superstep command", () => {
  it("migrates a new embedded database, then reports it up to date", () => {
    const dir = dataDir();
    const first = runSuperstep(["migrate"], { STUDIO_DATA_DIR: dir });
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(
      "Applied 0001-initial, 0002-runs, 0003-credentials, 0004-run-lifecycle, 0005-run-indexes, 0006-run-forks, 0007-run-pins, 0008-run-schedules, 0009-run-partial-indexes (sqlite)",
    );
    expect(existsSync(join(dir, "superstep.db"))).toBe(true);
    const second = runSuperstep(["migrate"], { STUDIO_DATA_DIR: dir });
    expect(second.status).toBe(0);
    expect(second.stdout).toContain("up to date");
  });

  it("starts, answers health and the UI over HTTP, and stops cleanly on SIGTERM", async () => {
    const studio = await start({ STUDIO_DATA_DIR: dataDir() });
    const health = await fetch(`${studio.url}/api/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { data: object }).data).toMatchObject({ status: "ok", db: "sqlite" });
    const page = await fetch(`${studio.url}/`, { headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    const deepLink = await fetch(`${studio.url}/workflows/some-id`, { headers: { accept: "text/html" } });
    expect(await deepLink.text()).toContain('<div id="root">');
    // Shutdown must not hang on a leftover timer: once stopped, no timer keeps the process alive.
    expect(await studio.stop()).toBe(0);
    const stopped = studio
      .output()
      .split("\n")
      .filter((line) => line.includes('"msg":"stopped"'))
      .map((line) => JSON.parse(line) as { pending: string[] });
    expect(stopped).toHaveLength(1);
    expect(stopped[0]?.pending.filter((resource) => resource === "Timeout")).toEqual([]);
  });

  it("keeps data across restarts of the same data dir", async () => {
    const dir = dataDir();
    const first = await start({ STUDIO_DATA_DIR: dir });
    const setup = await fetch(`${first.url}/api/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "owner@example.com", password: "owner-password" }),
    });
    expect(setup.status).toBe(201);
    const { token } = ((await setup.json()) as { data: { token: string } }).data;
    expect(await first.stop()).toBe(0);

    const second = await start({ STUDIO_DATA_DIR: dir });
    // Same persisted JWT secret: the old token still works after the restart.
    const me = await fetch(`${second.url}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { data: { email: string } }).data.email).toBe("owner@example.com");
  });

  it("refuses a bad setting with exit code 2 and a message naming it", () => {
    const result = runSuperstep(["start"], { STUDIO_DATA_DIR: dataDir(), STUDIO_PORT: "not-a-port" });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("STUDIO_PORT");
  });

  it("says plainly when the port is taken", async () => {
    const first = await start({ STUDIO_DATA_DIR: dataDir() });
    const port = new URL(first.url).port;
    const result = runSuperstep(["start"], { STUDIO_DATA_DIR: dataDir(), STUDIO_PORT: port });
    expect(result.status).toBe(5);
    expect(result.stderr).toContain(`127.0.0.1:${port} is already in use`);
  });

  it("validates a workflow file, listing every problem of an invalid one", () => {
    const ok = runSuperstep(["validate", join(examples, "triage.json")], {});
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain("valid");
    const dir = dataDir();
    const broken = join(dir, "broken.json");
    writeFileSync(
      broken,
      JSON.stringify({ name: "broken", nodes: [], edges: [{ id: "e", source: "start", target: "ghost" }] }),
    );
    const bad = runSuperstep(["validate", broken], {});
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("EDGE_TARGET_UNKNOWN");
    const json = runSuperstep(["validate", broken, "--json"], {});
    expect(JSON.parse(json.stdout).problems.map((p: { code: string }) => p.code)).toContain("EDGE_TARGET_UNKNOWN");
  });

  it("runs a workflow file and prints its events as JSON lines", () => {
    const result = runSuperstep(["run", join(examples, "fan-out-join.json"), "--json"], {});
    expect(result.status).toBe(0);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ type: "run_started", seq: 1 });
    expect(lines.at(-2)).toMatchObject({ type: "run_finished", data: { status: "ok" } });
    expect(lines.at(-1)).toMatchObject({ status: "ok", state: { summary: "9 words, 35 letters" } });
  });

  it("records a run in the studio's database, as the owner, when the studio has an account", async () => {
    const dir = dataDir();
    const studio = await start({ STUDIO_DATA_DIR: dir });
    const setup = await fetch(`${studio.url}/api/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "owner@example.com", password: "owner-password" }),
    });
    const { token } = ((await setup.json()) as { data: { token: string } }).data;
    // The CLI shares the embedded database with the running studio.
    const result = runSuperstep(["run", join(examples, "fan-out-join.json"), "--json"], { STUDIO_DATA_DIR: dir });
    expect(result.status).toBe(0);
    const summary = JSON.parse(result.stdout.trim().split("\n").at(-1) as string);
    expect(summary).toMatchObject({ recorded: true, status: "ok" });
    const run = await fetch(`${studio.url}/api/runs/${summary.run_id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const { data } = (await run.json()) as { data: { trigger: string; status: string; workflow_id: null } };
    expect(data).toMatchObject({ trigger: "cli", status: "ok", workflow_id: null });
    const local = runSuperstep(["run", join(examples, "hello.json"), "--json", "--no-record"], {
      STUDIO_DATA_DIR: dir,
    });
    expect(JSON.parse(local.stdout.trim().split("\n").at(-1) as string)).toMatchObject({
      recorded: false,
      status: "ok",
    });
  });

  it("rotates the encryption key: stored credentials are re-encrypted and still work", async () => {
    const dir = dataDir();
    const env = { STUDIO_DATA_DIR: dir, STUDIO_EGRESS_ALLOW: "127.0.0.1" };
    const before = await start(env);
    const setup = await fetch(`${before.url}/api/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "owner@example.com", password: "owner-password" }),
    });
    const { token } = ((await setup.json()) as { data: { token: string } }).data;
    const created = await fetch(`${before.url}/api/credentials`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: "svc", type: "http_bearer", data: { token: "service-token-123" } }),
    });
    const credentialId = ((await created.json()) as { data: { id: string } }).data.id;
    // The documented procedure: stop the studio, rotate, start it again.
    await before.stop();
    const keyFile = join(dir, "encryption-key");
    const oldKey = readFileSync(keyFile, "utf8");

    const rotated = runSuperstep(["rotate-key"], env);
    expect(rotated.status, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(/Re-encrypted 1 credential with key [0-9a-f]{12}\./);
    expect(readFileSync(keyFile, "utf8")).not.toBe(oldKey);
    expect(existsSync(join(dir, "encryption-key.previous"))).toBe(false);

    // A run that uses the credential opens it with the new key (the target is the studio itself).
    const after = await start(env);
    const workflow = join(dir, "uses-credential.json");
    writeFileSync(
      workflow,
      JSON.stringify({
        name: "uses credential",
        state: [{ name: "health", type: "any" }],
        nodes: [
          {
            id: "t",
            type: "tool",
            position: { x: 0, y: 0 },
            data: {
              kind: "http",
              method: "GET",
              url: `${after.url.replace("localhost", "127.0.0.1")}/api/health`,
              credential_id: credentialId,
              output_field: "health",
            },
          },
        ],
        edges: [{ id: "e", source: "start", target: "t" }],
      }),
    );
    const run = runSuperstep(["run", workflow, "--json"], env);
    const summary = JSON.parse(run.stdout.trim().split("\n").at(-1) as string);
    expect(summary, run.stdout).toMatchObject({
      recorded: true,
      status: "ok",
      state: { health: { data: { status: "ok" } } },
    });
  });

  it("shows a readable run and exits 3 while a person must answer", () => {
    const result = runSuperstep(["run", join(examples, "triage.json"), "--input", '{"message": "urgent: refund"}'], {});
    expect(result.status).toBe(3);
    expect(result.stdout).toContain("✓ classify");
    expect(result.stdout).toContain("→ urgent");
    expect(result.stdout).toContain("waiting for a person at approve");
  });

  it("refuses input that does not fit with exit code 1, bad arguments with exit code 2", () => {
    const badInput = runSuperstep(["run", join(examples, "triage.json"), "--input", '{"nope": 1}'], {});
    expect(badInput.status).toBe(1);
    expect(badInput.stderr).toContain("nope");
    const badJson = runSuperstep(["run", join(examples, "triage.json"), "--input", "{oops"], {});
    expect(badJson.status).toBe(2);
    expect(badJson.stderr).toContain("--input is not valid JSON");
    const missing = runSuperstep(["run", "/nonexistent/workflow.json"], {});
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("cannot read");
  });

  it("prints usage for an unknown command", () => {
    const result = runSuperstep(["launch"], {});
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('unknown command "launch"');
    expect(result.stderr).toContain("migrate");
  });
});
