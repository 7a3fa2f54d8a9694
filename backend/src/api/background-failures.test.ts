// The database goes away under a running studio: every background failure (a run's worker, a run
// that cannot be taken, the sweeper, the schedules, the callback deliveries) is logged with the run it concerned and counted in
// /api/health. On PostgreSQL the database comes back: a run paused by the outage goes on from its
// last checkpoint and ends `ok`, and a run that could not start meanwhile runs. SQLite's handle is
// closed instead, and does not come back.
import pg from "pg";
import { afterEach, describe, expect, inject, it } from "vitest";
import { edge, type Gate, gatedWorkflow, startGate } from "../../test/engine-harness.js";
import { until } from "../../test/studio-api.js";
import { setupOwner, startTestStudio } from "../../test/test-studio.js";

interface LogLine {
  level: number;
  msg: string;
  runId?: string;
  task?: string;
  err?: { message: string };
}

const ERROR = 50;
const postgres = inject("dbKind") === "postgres";
const quick = { name: "quick", state: [{ name: "n", type: "number" }], nodes: [], edges: [edge("start", "end")] };

async function admin(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject("pgAdminUrl") });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A studio whose JSON log lines are kept, and whose database can be taken away. */
async function openStudio() {
  const lines: LogLine[] = [];
  const studio = await startTestStudio(
    { STUDIO_EGRESS_ALLOW: "127.0.0.1", STUDIO_LOG_LEVEL: "warn", STUDIO_RUN_LEASE_TTL: "1" },
    { logTo: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) } },
  );
  const owner = await setupOwner(studio);
  const key = (
    await studio.app.inject({ method: "POST", url: "/api/api-keys", headers: owner.auth, payload: { name: "k" } })
  ).json().data.key as string;
  const databaseName = postgres ? new URL(studio.config.databaseUrl as string).pathname.slice(1) : "";
  let closed = false;
  return {
    studio,
    lines,
    trigger: async (document: object) => {
      const workflowId = (
        await studio.app.inject({ method: "POST", url: "/api/workflows", headers: owner.auth, payload: document })
      ).json().data.id;
      const response = await studio.app.inject({
        method: "POST",
        url: `/api/hooks/workflows/${workflowId}/runs`,
        headers: { authorization: `Bearer ${key}` },
        payload: {},
      });
      return response.json().data.run_id as string;
    },
    getRun: async (id: string) =>
      (await studio.app.inject({ method: "GET", url: `/api/runs/${id}`, headers: owner.auth })).json().data,
    logged: (what: string, match: (line: LogLine) => boolean) =>
      until(what, async () => lines.find((line) => line.level >= ERROR && match(line))),
    /** PostgreSQL refuses new connections and drops the studio's; SQLite's handle is closed. */
    goAway: async () => {
      if (postgres) {
        await admin(`ALTER DATABASE ${databaseName} ALLOW_CONNECTIONS false`);
        await admin(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${databaseName}' AND pid <> pg_backend_pid()`,
        );
      } else {
        await studio.container.database.close();
        closed = true;
      }
    },
    comeBack: () => admin(`ALTER DATABASE ${databaseName} ALLOW_CONNECTIONS true`),
    close: async () => {
      if (!closed) return studio.close();
      // The handle is closed already: stop the rest without closing it twice.
      await studio.app.close();
      studio.container.schedules.stop();
      await studio.container.runs.stop();
    },
  };
}

describe("background failures when the database goes away", () => {
  let opened: Awaited<ReturnType<typeof openStudio>> | undefined;
  let gate: Gate | undefined;
  afterEach(async () => {
    await gate?.close();
    await opened?.close();
  });

  it("logs a run's failure with its id, counts it in health, and (PostgreSQL) goes on with the run once the database is back", async () => {
    gate = await startGate();
    opened = await openStudio();
    const { studio, trigger, getRun, logged } = opened;
    await studio.container.runs.start(200);
    studio.container.schedules.start(200);
    const runId = await trigger(gatedWorkflow(gate.url, "held"));
    await gate.arrived(1);

    await opened.goAway();
    // The held call is answered while the database is away: its result cannot reach the ledger.
    gate.open();
    // PostgreSQL away pauses the turn (no ending), as a crash of its worker would; SQLite's closed
    // handle fails the run, whose ending then waits for a database that does not come back.
    const failed = await logged(
      "the run's failure",
      (l) => l.runId === runId && l.msg.startsWith(postgres ? "run paused: the database did not answer" : "run failed"),
    );
    expect(failed).toMatchObject({ task: "run", err: { message: expect.any(String) } });
    if (!postgres)
      await logged("its ending not recorded", (l) => l.runId === runId && l.msg.startsWith("run ending not recorded"));
    await logged("a failed sweep", (l) => l.task === "sweeper" && l.msg.startsWith("sweep failed"));
    await logged("a failed schedules tick", (l) => l.task === "schedules");
    studio.container.callbacks.kick();
    await logged("a failed callback pass", (l) => l.task === "callbacks");
    // The run's failure, a sweep, a schedules tick, a callback pass, and (SQLite) its ending.
    const failuresAtLeast = postgres ? 4 : 5;
    const counted = studio.container.background.view();
    expect(counted.failures).toBeGreaterThanOrEqual(failuresAtLeast);
    expect(counted.last_failure_at).toEqual(expect.any(String));

    if (!postgres) {
      const health = await studio.app.inject({ method: "GET", url: "/api/health" });
      expect(health.statusCode).toBe(503);
      expect(health.json().error.code).toBe("DATABASE_UNAVAILABLE");
      return;
    }
    await opened.comeBack();
    // Its lease expires, the sweeper queues it again, and it goes on from its last checkpoint: the
    // call whose result did not reach the ledger is made again with the same idempotency key.
    const ended = await until("the paused run's ending", async () => {
      const run = await getRun(runId);
      return ["ok", "error", "cancelled", "timeout", "expired"].includes(run.status) ? run : undefined;
    });
    expect(ended).toMatchObject({ status: "ok", attempt: 2, state: { reply: { path: "/held" } } });
    expect(gate.arrivals).toEqual(["/held", "/held"]);
    // The run's ending may come before the sweeper's next pass: wait for that pass rather than
    // assume its order.
    await until(
      "a sweep after the database came back",
      async () => studio.container.background.view().last_sweep_at ?? undefined,
    );
    const health = await studio.app.inject({ method: "GET", url: "/api/health" });
    expect(health.statusCode).toBe(200);
    const { background } = health.json().data;
    expect(background.failures).toBeGreaterThanOrEqual(failuresAtLeast);
    expect(background.last_failure_at).toEqual(expect.any(String));
    expect(["run", "sweeper", "schedules", "callbacks"]).toContain(background.last_failure_task);
    expect(background.last_sweep_at).toEqual(expect.any(String));
  });

  it("logs a run that could not be taken, with its id, and runs it once the database answers", async () => {
    opened = await openStudio();
    const { studio, trigger, getRun, logged } = opened;
    // Queued while the worker loop is not started yet: the loop takes it when the database is gone.
    const runId = await trigger(quick);
    await opened.goAway();
    await expect(studio.container.runs.start(200)).rejects.toThrow();
    await logged("the run not started", (l) => l.runId === runId && l.msg.startsWith("run not started"));
    expect(studio.container.background.view().last_failure_task).not.toBeNull();
    if (!postgres) return;

    await opened.comeBack();
    // Still queued in the database: the sweeper queues it again and it runs.
    const run = await until("the run to run", async () => {
      const row = await getRun(runId);
      return ["queued", "running"].includes(row.status) ? undefined : row;
    });
    expect(run.status).toBe("ok");
  });
});
