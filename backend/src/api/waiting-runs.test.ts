// A run waiting at a Human node is a row in the database and nothing else: the process that
// started it holds no entry, timer or listener for it, and any process on the same database
// resumes it.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { approvalWorkflow } from "../../test/engine-harness.js";
import { timersLeftBy } from "../../test/pending-timers.js";
import { type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";
import { createLogger } from "../core/logging.js";
import { buildApp } from "./app.js";
import { buildContainer } from "./deps.js";

const RUNS = 20;

describe("runs waiting at a Human node", () => {
  let studio: TestStudio;
  let owner: Session;
  let key: { authorization: string };

  beforeAll(async () => {
    studio = await startTestStudio({ STUDIO_USER_MAX_RUNS: "4", STUDIO_WORKER_CONCURRENCY: "4" });
    await studio.container.runs.start(60_000);
    owner = await setupOwner(studio);
    const created = await studio.app.inject({
      method: "POST",
      url: "/api/api-keys",
      headers: owner.auth,
      payload: { name: "hooks" },
    });
    key = { authorization: `Bearer ${created.json().data.key}` };
  });
  afterAll(() => studio.close());

  it("hold nothing in the process, and resume from the database alone", async () => {
    const saved = await studio.app.inject({
      method: "POST",
      url: "/api/workflows",
      headers: owner.auth,
      // A timeout, so each wait has an expiry to keep: the sweeper finds it in the database.
      payload: approvalWorkflow({ field: "approved", timeoutSeconds: 3600 }),
    });
    const workflowId = saved.json().data.id as string;
    const runIds: string[] = [];
    const timersLeft = await timersLeftBy(60_000, async () => {
      for (let i = 0; i < RUNS; i++) {
        const hook = await studio.app.inject({
          method: "POST",
          url: `/api/hooks/workflows/${workflowId}/runs`,
          headers: key,
          payload: {},
        });
        runIds.push(hook.json().data.run_id);
      }
      await studio.container.runs.idle();
    });

    const rows = await studio.container.database.db
      .selectFrom("runs")
      .select(["status", "expires_at"])
      .where("workflow_id", "=", workflowId)
      .execute();
    expect(rows).toHaveLength(RUNS);
    expect(rows.every((row) => row.status === "waiting" && row.expires_at !== null)).toBe(true);
    expect(studio.container.runs.held()).toEqual({ executing: 0, queued: 0, listeners: 0 });
    expect(timersLeft).toBe(0);

    // Another process on the same database (here: a second container) answers them all.
    const other = await buildContainer(studio.config, createLogger("silent", "json"));
    const app = await buildApp(other);
    try {
      await other.runs.start(60_000);
      for (const runId of runIds) {
        const resumed = await app.inject({
          method: "POST",
          url: `/api/runs/${runId}/resume`,
          headers: owner.auth,
          payload: { input: { approved: true } },
        });
        expect(resumed.statusCode).toBe(200);
      }
      await other.runs.idle();
      const ended = await other.database.db
        .selectFrom("runs")
        .select(["status", "state"])
        .where("workflow_id", "=", workflowId)
        .execute();
      expect(ended.map((row) => [row.status, JSON.parse(row.state as string).answer])).toEqual(
        Array.from({ length: RUNS }, () => ["ok", { approved: true }]),
      );
      expect(other.runs.held()).toEqual({ executing: 0, queued: 0, listeners: 0 });
    } finally {
      await app.close();
      await other.close();
    }
  });

  it("answers a resume before a worker takes the run: accepting never waits behind the run's turn", async () => {
    const saved = await studio.app.inject({
      method: "POST",
      url: "/api/workflows",
      headers: owner.auth,
      payload: approvalWorkflow({ field: "approved" }),
    });
    const workflowId = saved.json().data.id as string;
    const hook = await studio.app.inject({
      method: "POST",
      url: `/api/hooks/workflows/${workflowId}/runs`,
      headers: key,
      payload: {},
    });
    const runId = hook.json().data.run_id as string;
    await studio.container.runs.idle();
    const waiting = await studio.container.database.db
      .selectFrom("runs")
      .select(["status", "attempt"])
      .where("id", "=", runId)
      .executeTakeFirstOrThrow();
    expect(waiting.status).toBe("waiting");

    const resumed = await studio.app.inject({
      method: "POST",
      url: `/api/runs/${runId}/resume`,
      headers: owner.auth,
      payload: { input: { approved: true } },
    });
    // As the answer arrives, no worker holds the run yet, nor does the queue.
    expect(studio.container.runs.held()).toEqual({ executing: 0, queued: 0, listeners: 0 });
    expect(resumed.statusCode).toBe(200);
    if (inject("dbKind") === "sqlite") {
      // SQLite answers this read before anything else runs: the row is still as the answer left
      // it, queued, with no new attempt and no lease.
      const atAnswer = await studio.container.database.db
        .selectFrom("runs")
        .select(["status", "attempt", "lease_owner"])
        .where("id", "=", runId)
        .executeTakeFirstOrThrow();
      expect(atAnswer).toEqual({ status: "queued", attempt: waiting.attempt, lease_owner: null });
    }
    await studio.container.runs.idle();
    const ended = await studio.container.database.db
      .selectFrom("runs")
      .select(["status", "attempt"])
      .where("id", "=", runId)
      .executeTakeFirstOrThrow();
    expect(ended).toEqual({ status: "ok", attempt: waiting.attempt + 1 });
  });
});
