// The disk fails to flush the embedded database's WAL file under a running studio: every request
// that would acknowledge a write (or show data read since) is answered 503 DATABASE_SYNC_FAILED
// with Retry-After, never a bare 500; nothing is committed after the failure; the run accepted
// before it records no false ending and, once the studio restarts on a disk that works, goes on
// from its last checkpoint and ends ok. The flush fails for real: the studio's own seam for the
// flush (WalDurability's syncFile) is pointed at a file the kernel refuses to fdatasync.
// PostgreSQL flushes its own log, so this is the embedded database's case only.
import { closeSync, fdatasync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, inject, it } from "vitest";
import { type Gate, startGate } from "../../test/engine-harness.js";
import { openTroubleStudio, type TroubleStudio } from "../../test/storage-trouble.js";
import { until } from "../../test/studio-api.js";
import { startTestStudio, type TestStudio } from "../../test/test-studio.js";
import { SQLITE_FILE } from "../repositories/database.js";
import type { SyncFile } from "../repositories/wal-durability.js";

/** A flush that works until `fail()`; then each one is a real fdatasync the kernel refuses (EINVAL). */
function breakableSync(): { syncFile: SyncFile; fail(): void; failures: NodeJS.ErrnoException[]; close(): void } {
  const unsyncable = openSync("/dev/null", "r");
  const failures: NodeJS.ErrnoException[] = [];
  let failing = false;
  return {
    syncFile: (fd, done) => {
      if (!failing) return fdatasync(fd, done);
      fdatasync(unsyncable, (error) => {
        if (error) failures.push(error);
        done(error);
      });
    },
    fail: () => {
      failing = true;
    },
    failures,
    close: () => closeSync(unsyncable),
  };
}

/** The runs the database file holds, read with a connection of its own. */
function runsOnFile(dataDir: string): { id: string; status: string }[] {
  const other = new DatabaseSync(join(dataDir, SQLITE_FILE), { readOnly: true });
  try {
    return other.prepare("select id, status from runs").all() as { id: string; status: string }[];
  } finally {
    other.close();
  }
}

describe.skipIf(inject("dbKind") !== "sqlite")("a WAL flush the disk fails", () => {
  let gate: Gate | undefined;
  let dataDir: string | undefined;
  const opened: TroubleStudio[] = [];
  const syncs: ReturnType<typeof breakableSync>[] = [];
  let restarted: TestStudio | undefined;
  afterEach(async () => {
    gate?.open();
    for (const studio of opened.splice(0)) await studio.studio.close();
    await restarted?.close();
    await gate?.close();
    for (const sync of syncs.splice(0)) sync.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers 503 DATABASE_SYNC_FAILED, commits nothing more, and loses no accepted run", async () => {
    gate = await startGate();
    dataDir = mkdtempSync(join(tmpdir(), "superstep-unsynced-"));
    const env = { STUDIO_DATA_DIR: dataDir, STUDIO_RUN_LEASE_TTL: "2" };
    const sync = breakableSync();
    syncs.push(sync);
    const first = await openTroubleStudio(env, gate, { database: { syncFile: sync.syncFile } });
    opened.push(first);
    await first.studio.container.runs.start(250);

    const accepted = await first.trigger();
    expect(accepted.status).toBe(202);
    const heldId = accepted.body.data?.run_id as string;
    await gate.arrived(1);

    sync.fail();
    // The trigger's run is committed, but the flush that would make it durable fails: refused.
    const unconfirmed = await first.trigger();
    expect(unconfirmed.status).toBe(503);
    expect(unconfirmed.retryAfter).toBe("60");
    expect(unconfirmed.body.error).toMatchObject({
      code: "DATABASE_SYNC_FAILED",
      details: { retry_after_seconds: 60 },
    });
    expect(sync.failures.map((error) => error.code)).toContain("EINVAL");
    const runsAfterFailure = runsOnFile(dataDir);

    // From now on a write is refused before it commits, and a read cannot be shown either.
    const refused = await first.trigger();
    expect(refused.status).toBe(503);
    expect(refused.body.error?.code).toBe("DATABASE_SYNC_FAILED");
    expect(runsOnFile(dataDir)).toEqual(runsAfterFailure);
    const read = await first.studio.app.inject({
      method: "GET",
      url: `/api/runs/${heldId}`,
      headers: first.owner.auth,
    });
    expect(read.statusCode).toBe(503);
    expect(read.json().error.code).toBe("DATABASE_SYNC_FAILED");

    // The accepted run's node returns, but nothing it writes can be confirmed: no ending is
    // recorded, the run stays running for the next start.
    gate.open();
    await first.logged(heldId, "run paused: the disk did not confirm a database write");
    expect(runsOnFile(dataDir).find((run) => run.id === heldId)?.status).toBe("running");
    await first.studio.close();
    opened.splice(0);

    // Restarted on a disk that flushes: the accepted run goes on and ends ok, its events complete
    // and in order; no run appeared after the failure (the one whose flush failed may have been
    // kept: it was never confirmed, and a retry with its Idempotency-Key would get it back).
    const second = await startTestStudio({ ...env, STUDIO_EGRESS_ALLOW: "127.0.0.1" });
    restarted = second;
    await second.container.runs.start(250);
    const db = second.container.database.db;
    const ended = await until("the accepted run to end", async () => {
      const row = await db.selectFrom("runs").select(["status", "state"]).where("id", "=", heldId).executeTakeFirst();
      return row && !["queued", "running"].includes(row.status) ? row : undefined;
    });
    expect(ended.status).toBe("ok");
    expect(JSON.parse(ended.state as string)).toMatchObject({ reply: { path: "/held" } });
    const events = await db
      .selectFrom("run_events")
      .select(["seq", "type"])
      .where("run_id", "=", heldId)
      .orderBy("seq")
      .execute();
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.filter((event) => event.type === "run_finished")).toHaveLength(1);
    expect(events.at(-1)?.type).toBe("run_finished");
    const unconfirmedIds = runsAfterFailure.map((run) => run.id).filter((id) => id !== heldId);
    expect(unconfirmedIds.length).toBeLessThanOrEqual(1);
    expect(new Set(runsOnFile(dataDir).map((run) => run.id))).toEqual(new Set([heldId, ...unconfirmedIds]));
  });
});
