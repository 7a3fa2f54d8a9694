// Another connection holds the database's write lock longer than STUDIO_DB_BUSY_TIMEOUT_MS: a
// write is answered 503 DATABASE_BUSY with Retry-After (never a 500 or a hang), and a run accepted
// before keeps its place: it goes on from its last checkpoint once the lock is released. On
// SQLite the holder is a second connection to the file in `BEGIN IMMEDIATE`; on PostgreSQL, a
// second session holding `LOCK TABLE runs IN EXCLUSIVE MODE` (reads go on, writes to runs wait),
// met by lock_timeout.

import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { type Gate, startGate } from "../../test/engine-harness.js";
import { openTroubleStudio, type TroubleStudio } from "../../test/storage-trouble.js";
import type { TestStudio } from "../../test/test-studio.js";
import { SQLITE_FILE } from "../repositories/database.js";

/** Takes the write lock from a second connection; resolves with its release. */
async function holdWriteLock(studio: TestStudio): Promise<() => Promise<void>> {
  if (studio.container.database.kind === "sqlite") {
    const other = new DatabaseSync(join(studio.config.dataDir, SQLITE_FILE));
    other.exec("BEGIN IMMEDIATE");
    return async () => {
      other.exec("ROLLBACK");
      other.close();
    };
  }
  const other = new pg.Client({ connectionString: studio.config.databaseUrl as string });
  await other.connect();
  await other.query("BEGIN");
  await other.query("LOCK TABLE runs IN EXCLUSIVE MODE");
  return async () => {
    await other.query("ROLLBACK");
    await other.end();
  };
}

describe("a database locked by another connection", () => {
  let gate: Gate | undefined;
  let opened: TroubleStudio | undefined;
  let release: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await release?.();
    await gate?.close();
    await opened?.studio.close();
  });

  it("answers writes 503 DATABASE_BUSY with Retry-After, and runs an accepted run once the lock is released", async () => {
    gate = await startGate();
    opened = await openTroubleStudio({ STUDIO_DB_BUSY_TIMEOUT_MS: "200", STUDIO_RUN_LEASE_TTL: "2" }, gate);
    const { studio, owner, trigger, getRun, logged, ended } = opened;
    await studio.container.runs.start(250);
    const accepted = await trigger();
    expect(accepted.status).toBe(202);
    const runId = accepted.body.data?.run_id as string;
    await gate.arrived(1);

    release = await holdWriteLock(studio);
    const refused = await trigger();
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ code: "DATABASE_BUSY", details: { retry_after_seconds: 5 } });
    expect(refused.retryAfter).toBe("5");
    // A cancel is a write too: refused the same way, and the run is not cancelled.
    const cancel = await studio.app.inject({ method: "POST", url: `/api/runs/${runId}/cancel`, headers: owner.auth });
    expect(cancel.statusCode).toBe(503);
    expect(cancel.json().error.code).toBe("DATABASE_BUSY");
    // Reads go on.
    expect((await getRun(runId)).status).toBe("running");

    // The node's call returns; recording it meets the lock: the turn stops without an ending.
    gate.open();
    await logged(runId, "run paused: the database stayed locked");
    expect((await getRun(runId)).status).toBe("running");

    const releasing = release;
    release = undefined;
    await releasing();
    const run = await ended(runId);
    expect(run).toMatchObject({ status: "ok", state: { reply: { path: "/held" } } });
    expect(run.attempt).toBeGreaterThanOrEqual(2);

    // The refused trigger created no run; the server takes triggers again.
    const runs = await studio.container.database.db
      .selectFrom("runs")
      .select("id")
      .where("workflow_id", "=", opened.workflowId)
      .execute();
    expect(runs.map((r) => r.id)).toEqual([runId]);
    const again = await trigger();
    expect(again.status).toBe(202);
    expect((await ended(again.body.data?.run_id as string)).status).toBe("ok");
  });
});
