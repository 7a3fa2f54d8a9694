// The sandbox children a studio keeps ready for Code nodes never outlive it: they are stopped with
// the server, and end on their own when the server is killed (their stdin closes).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, type StudioApi, setUp, waitForStatus } from "./studio-api.js";
import { assertBuilt, reapStudioProcesses, type StudioProcess, startStudioProcess } from "./studio-process.js";

const EXAMPLE = new URL("../../examples/fan-out-join.json", import.meta.url);

/** Sandbox children of a process, from /proc (Linux). */
function sandboxChildrenOf(parent: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (new RegExp(`^PPid:\\s+${parent}$`, "m").test(status) && cmdline.includes("sandbox-child.mjs")) {
        found.push(Number(entry));
      }
    } catch {
      // The process ended while being read.
    }
  }
  return found;
}

/** Still running: exists and is not a zombie waiting to be reaped. */
function running(pid: number): boolean {
  if (!existsSync(`/proc/${pid}`)) return false;
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

describe.runIf(process.platform === "linux")("sandbox children of a studio process", () => {
  const dirs: string[] = [];
  beforeAll(() => assertBuilt());
  afterEach(() => reapStudioProcesses());
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** A studio that has run a workflow with JavaScript and Python Code nodes, and its sandbox children. */
  async function studioAfterCodeNodes(): Promise<{ studio: StudioProcess; children: number[] }> {
    const dataDir = mkdtempSync(join(tmpdir(), "superstep-sandbox-children-"));
    dirs.push(dataDir);
    const studio = await startStudioProcess({ STUDIO_DATA_DIR: dataDir });
    const api: StudioApi = { base: studio.url, token: "" };
    const { key, workflowIds } = await setUp(api, [JSON.parse(readFileSync(EXAMPLE, "utf8"))]);
    const started = await call(api, "POST", `/api/hooks/workflows/${workflowIds[0]}/runs`, {}, key);
    expect(started.status).toBe(202);
    const run = await waitForStatus(api, started.body.data.run_id, ["ok", "error"]);
    expect(run.status).toBe("ok");
    const pid = studio.child.pid as number;
    // One JavaScript and one Python child are kept ready after the run.
    await expect.poll(() => sandboxChildrenOf(pid).length, { timeout: 60_000 }).toBe(2);
    return { studio, children: sandboxChildrenOf(pid) };
  }

  it("stops them when it stops", async () => {
    const { studio, children } = await studioAfterCodeNodes();
    expect(children.every(running)).toBe(true);
    expect(await studio.stop()).toBe(0);
    expect(children.filter(running)).toEqual([]);
  });

  it("they end on their own when it is killed", async () => {
    const { studio, children } = await studioAfterCodeNodes();
    expect(children.every(running)).toBe(true);
    await studio.kill();
    await expect.poll(() => children.filter(running), { timeout: 60_000 }).toEqual([]);
  });
});
