// Two studio processes on one database (a shared SQLite file, or one PostgreSQL database): a run
// executing in one is never taken by the other while its lease is live, and is taken over only
// once the lease of a killed process has expired.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "../src/repositories/database.js";
import { type Gate, gatedWorkflow, startGate } from "./engine-harness.js";
import { call, type StudioApi, setUp, until, waitForStatus } from "./studio-api.js";
import { openStudioEnv, type StudioEnv } from "./studio-env.js";
import { assertBuilt, reapStudioProcesses, type StudioProcess, startStudioProcess } from "./studio-process.js";

const LEASE_TTL_S = 3;

describe("two servers on one database", () => {
  let gate: Gate;
  let setup: StudioEnv;
  let env: Record<string, string>;
  let database: DatabaseHandle;

  beforeAll(async () => {
    assertBuilt();
    gate = await startGate();
    setup = await openStudioEnv("lease", { STUDIO_RUN_LEASE_TTL: String(LEASE_TTL_S) });
    env = setup.env;
  });
  afterAll(async () => {
    await reapStudioProcesses();
    await gate.close();
    await setup?.close();
  });

  async function start(): Promise<{ studio: StudioProcess; api: StudioApi }> {
    const studio = await startStudioProcess(env);
    return { studio, api: { base: studio.url, token: "" } };
  }
  const leaseOf = (runId: string) =>
    database.db
      .selectFrom("runs")
      .select(["lease_gen", "lease_owner", "lease_expires_at", "attempt", "status"])
      .where("id", "=", runId)
      .executeTakeFirstOrThrow();

  it("leaves a live run to its server, and takes it over only after that server died and its lease expired", async () => {
    const first = await start();
    const { key, workflowIds } = await setUp(first.api, [
      gatedWorkflow(gate.url, "live"),
      gatedWorkflow(gate.url, "orphan"),
    ]);
    const [liveWorkflow, orphanWorkflow] = workflowIds as [string, string];
    database = setup.database();
    const trigger = async (workflowId: string) =>
      String((await call(first.api, "POST", `/api/hooks/workflows/${workflowId}/runs`, {}, key)).body.data.run_id);

    // 1. A run executes in the first server, its HTTP call held open by the gate.
    const live = await trigger(liveWorkflow);
    await gate.arrived(1);
    const taken = await leaseOf(live);
    expect(taken).toMatchObject({ status: "running", lease_gen: 1, attempt: 1 });

    // 2. A second server starts on the same database and sweeps after that lease would have
    // expired had the first server not renewed it: it leaves the run alone.
    const second = await start();
    second.api.token = first.api.token;
    await until("the second server to sweep past the first lease", async () => {
      const health = (await call(second.api, "GET", "/api/health")).body.data;
      const swept = health.background.last_sweep_at as string | null;
      return swept !== null && swept > String(taken.lease_expires_at) ? health : undefined;
    });
    const renewed = await leaseOf(live);
    expect(renewed).toMatchObject({ status: "running", lease_gen: 1, lease_owner: taken.lease_owner });
    expect(String(renewed.lease_expires_at) > String(taken.lease_expires_at)).toBe(true);
    expect(gate.arrivals).toEqual(["/live"]);

    gate.release("/live");
    const done = await waitForStatus(second.api, live, ["ok", "error", "cancelled", "timeout"]);
    expect(done).toMatchObject({ status: "ok", attempt: 1, state: { reply: { path: "/live" } } });
    expect(gate.arrivals).toEqual(["/live"]);

    // 3. Another run in the first server, which is then killed mid-call.
    const orphan = await trigger(orphanWorkflow);
    await gate.arrived(2);
    // Events reach the disk a moment after the engine emits them (the recorder does not make the
    // run wait for it): the kill comes once the first attempt's start is written, so that the
    // takeover's own start follows it in the log.
    await until("the first attempt's start on disk", async () => {
      const row = await database.db
        .selectFrom("run_events")
        .select("seq")
        .where("run_id", "=", orphan)
        .where("type", "=", "node_started")
        .executeTakeFirst();
      return row;
    });
    await first.studio.kill();
    const dead = await leaseOf(orphan);
    expect(dead).toMatchObject({ status: "running", lease_gen: 1 });

    // 4. The second server takes it over, once the dead server's lease has expired: the call in
    // flight at the kill is made again, with the same idempotency key and the next attempt.
    await gate.arrived(3);
    expect(gate.arrivals).toEqual(["/live", "/orphan", "/orphan"]);
    expect(gate.headers[2]?.["idempotency-key"]).toBe(gate.headers[1]?.["idempotency-key"]);
    expect([gate.headers[1]?.["x-studio-attempt"], gate.headers[2]?.["x-studio-attempt"]]).toEqual(["1", "2"]);
    // As for the first attempt, the takeover's start reaches the disk a moment after its call went
    // out: read once both starts are there (a start never written ends the wait as a failure).
    type Event = { type: string; ts: string; data: { attempt?: number } };
    const starts = await until("the takeover's start on disk", async () => {
      const events = (await call(second.api, "GET", `/api/runs/${orphan}/events`)).body.data as Event[];
      const found = events.filter((e) => e.type === "run_started");
      return found.length >= 2 ? found : undefined;
    });
    expect(starts.map((e) => e.data.attempt)).toEqual([1, 2]);
    expect(String(starts[1]?.ts) >= String(dead.lease_expires_at)).toBe(true);

    gate.open();
    const recovered = await waitForStatus(second.api, orphan, ["ok", "error", "cancelled", "timeout"]);
    expect(recovered).toMatchObject({ status: "ok", attempt: 2, state: { reply: { path: "/orphan" } } });
    const health = (await call(second.api, "GET", "/api/health")).body.data;
    expect(health.background.failures).toBe(0);
    expect(await second.studio.stop()).toBe(0);
  });
});
