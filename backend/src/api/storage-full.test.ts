// The database's disk fills up under a running studio: the request whose write meets it is
// answered 507 STORAGE_FULL with Retry-After (never a 500), reads go on, and no accepted run is
// lost or corrupted: a run accepted before (or while) the disk filled stays resumable and ends ok
// once space is back. A real full disk: a small tmpfs filled to the last byte holds the SQLite
// file, or the PostgreSQL database (a tablespace on it; the write-ahead log stays on the
// cluster's own disk, as on a server whose data volume filled up).
import { statSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { afterEach, describe, expect, inject, it } from "vitest";
import { type Gate, startGate } from "../../test/engine-harness.js";
import { mountSmallDisk, type SmallDisk } from "../../test/small-disk.js";
import { openTroubleStudio, type TroubleStudio } from "../../test/storage-trouble.js";
import { SQLITE_FILE } from "../repositories/database.js";

const postgres = inject("dbKind") === "postgres";

async function admin<T>(text: string, url = inject("pgAdminUrl")): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Where the database lives: the data dir on the small disk, or a PostgreSQL database in a tablespace on it. */
async function databaseOn(disk: SmallDisk): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (!postgres) return { env: { STUDIO_DATA_DIR: join(disk.path, "data") }, drop: async () => {} };
  const suffix = Math.random().toString(16).slice(2, 10);
  const [tablespace, database] = [`small_disk_${suffix}`, `superstep_full_${suffix}`];
  await admin(`CREATE TABLESPACE ${tablespace} LOCATION '${disk.path}'`);
  await admin(`CREATE DATABASE ${database} TABLESPACE ${tablespace}`);
  const url = new URL(inject("pgAdminUrl"));
  url.pathname = `/${database}`;
  return {
    env: { DATABASE_URL: url.toString() },
    drop: async () => {
      await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin(`DROP TABLESPACE IF EXISTS ${tablespace}`);
    },
  };
}

/** The PostgreSQL server's own user must own the tablespace's directory. */
async function serverOwner(): Promise<{ uid: number; gid: number }> {
  const [row] = await admin<{ data_directory: string }>("SHOW data_directory");
  try {
    const { uid, gid } = statSync(row?.data_directory as string);
    return { uid, gid };
  } catch (error) {
    throw new Error(
      `the full-disk test puts a tablespace on a small disk of this machine, so the PostgreSQL server must run here: ${(error as Error).message}`,
    );
  }
}

/** SQLite: the log restarts empty, so the next write must take new space on the disk. */
function checkpointAway(dataDir: string): void {
  const other = new DatabaseSync(join(dataDir, SQLITE_FILE));
  try {
    other.exec("PRAGMA busy_timeout = 10000");
    expect(other.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get()).toMatchObject({ busy: 0 });
  } finally {
    other.close();
  }
}

function sqliteIntegrity(dataDir: string): unknown {
  const other = new DatabaseSync(join(dataDir, SQLITE_FILE), { readOnly: true });
  try {
    return other.prepare("PRAGMA integrity_check").all();
  } finally {
    other.close();
  }
}

describe("a full disk under the database", () => {
  let gate: Gate | undefined;
  let disk: SmallDisk | undefined;
  let database: { drop(): Promise<void> } | undefined;
  let opened: TroubleStudio | undefined;
  afterEach(async () => {
    disk?.free();
    await gate?.close();
    await opened?.studio.close();
    await database?.drop();
    disk?.unmount();
  });

  it("answers 507 STORAGE_FULL with Retry-After, and ends every accepted run ok once space is back", async () => {
    gate = await startGate();
    disk = mountSmallDisk(64, postgres ? await serverOwner() : undefined);
    const placed = await databaseOn(disk);
    database = placed;
    // Only the disk refuses here: the per-user limits (60 starts a minute, 100 queued by default)
    // must not refuse first while the triggers use up the room left in pages the database has.
    opened = await openTroubleStudio(
      {
        ...placed.env,
        STUDIO_RUN_LEASE_TTL: "2",
        STUDIO_USER_RUN_RATE: "100000",
        STUDIO_USER_MAX_QUEUED: "100000",
      },
      gate,
    );
    const { studio, trigger, getRun, logged, ended } = opened;
    await studio.container.runs.start(250);
    const first = await trigger();
    expect(first.status).toBe(202);
    const heldId = first.body.data?.run_id as string;
    await gate.arrived(1);

    if (!postgres) checkpointAway(studio.config.dataDir);
    disk.fill();
    // Triggers until one meets the full disk (a write may still find room in a page it already
    // has): each is accepted, or refused with STORAGE_FULL, nothing else.
    const acceptedWhileFull: string[] = [];
    let refused: Awaited<ReturnType<typeof trigger>> | undefined;
    for (let attempt = 0; attempt < 500 && !refused; attempt++) {
      const answer = await trigger();
      if (answer.status === 202) acceptedWhileFull.push(answer.body.data?.run_id as string);
      else refused = answer;
    }
    expect(refused).toBeDefined();
    expect(refused?.status).toBe(507);
    expect(refused?.body.error).toMatchObject({ code: "STORAGE_FULL", details: { retry_after_seconds: 60 } });
    expect(refused?.retryAfter).toBe("60");
    // Reads go on.
    expect((await getRun(heldId)).status).toBe("running");

    gate.open();
    if (!postgres) {
      // Every write needs new space on SQLite now: the held run's turn stops without an ending.
      await logged(heldId, "run paused: the database's disk is full");
      expect((await getRun(heldId)).status).toBe("running");
    }

    disk.free();
    for (const runId of [heldId, ...acceptedWhileFull]) {
      expect(await ended(runId)).toMatchObject({ status: "ok", state: { reply: { path: "/held" } } });
    }
    const runs = await studio.container.database.db
      .selectFrom("runs")
      .select("id")
      .where("workflow_id", "=", opened.workflowId)
      .execute();
    expect(new Set(runs.map((r) => r.id))).toEqual(new Set([heldId, ...acceptedWhileFull]));
    if (!postgres) expect(sqliteIntegrity(studio.config.dataDir)).toEqual([{ integrity_check: "ok" }]);

    const again = await trigger();
    expect(again.status).toBe(202);
    expect((await ended(again.body.data?.run_id as string)).status).toBe("ok");
  });
});
