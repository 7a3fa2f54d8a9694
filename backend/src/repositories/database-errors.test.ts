// Which driver errors are a storage problem that passes (a full disk, a lock held elsewhere) or a
// database out of reach, and the catalog code each becomes. The errors themselves are met for real in the dialect, locked
// database and full disk tests; here, the codes of both drivers side by side.
import { describe, expect, it } from "vitest";
import { databaseAppError, isDatabaseAway, storageProblem } from "./database-errors.js";

describe("storage problems", () => {
  it.each([
    [{ errcode: 13, message: "database or disk is full" }, "full"], // SQLITE_FULL
    [{ errcode: 5, message: "database is locked" }, "busy"], // SQLITE_BUSY
    [{ errcode: 517 }, "busy"], // SQLITE_BUSY_SNAPSHOT
    [{ errcode: 6 }, "busy"], // SQLITE_LOCKED
    [{ code: "53100", message: "could not extend file" }, "full"], // PostgreSQL disk_full
    [{ code: "55P03", message: "canceling statement due to lock timeout" }, "busy"], // lock_not_available
    [{ errcode: 2067 }, null], // SQLITE_CONSTRAINT_UNIQUE
    [{ errcode: 10 }, null], // SQLITE_IOERR
    [{ code: "SQLITE_IOERR_FSYNC", message: "the disk did not confirm a database write" }, "unsynced"], // our WAL flush
    [{ errcode: 1034 }, "unsynced"], // SQLite's own SQLITE_IOERR_FSYNC
    [{ code: "23505" }, null], // unique_violation
    [{ code: "57P01" }, null], // admin_shutdown: the database went away, not busy
    [new Error("database or disk is full"), null], // only the driver's code counts, not the words
    [null, null],
  ])("%j is %s", (error, problem) => {
    expect(storageProblem(error)).toBe(problem);
  });

  it.each([
    [{ code: "ECONNREFUSED", syscall: "connect" }, true],
    [{ code: "57P01", message: "terminating connection due to administrator command" }, true],
    [{ code: "57P03", message: "the database system is in recovery mode" }, true],
    [{ code: "08006" }, true], // connection_failure
    [new Error("Connection terminated unexpectedly"), true],
    [{ code: "55000", message: 'database "studio" is not currently accepting connections' }, true],
    [{ code: "55000", message: 'currval of sequence "s" is not yet defined in this session' }, false],
    [{ code: "53100" }, false],
    [{ code: "23505" }, false],
    [new Error("boom"), false],
  ])("%j is a database out of reach: %s", (error, away) => {
    expect(isDatabaseAway(error)).toBe(away);
  });

  it("becomes STORAGE_FULL (507), DATABASE_BUSY, DATABASE_SYNC_FAILED or DATABASE_UNAVAILABLE (503), each with a Retry-After hint", () => {
    expect(databaseAppError({ errcode: 13 })).toMatchObject({
      code: "STORAGE_FULL",
      status: 507,
      details: { retry_after_seconds: 60 },
    });
    expect(databaseAppError({ code: "55P03" })).toMatchObject({
      code: "DATABASE_BUSY",
      status: 503,
      details: { retry_after_seconds: 5 },
    });
    expect(databaseAppError({ code: "ECONNREFUSED" })).toMatchObject({
      code: "DATABASE_UNAVAILABLE",
      status: 503,
      details: { retry_after_seconds: 10 },
    });
    expect(databaseAppError({ code: "SQLITE_IOERR_FSYNC" })).toMatchObject({
      code: "DATABASE_SYNC_FAILED",
      status: 503,
      details: { retry_after_seconds: 60 },
    });
    expect(databaseAppError(new Error("boom"))).toBeNull();
  });
});
