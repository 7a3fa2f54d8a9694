// Which driver errors are a storage problem that passes (a full disk, a lock held elsewhere), and
// the catalog code each becomes. The errors themselves are met for real in the dialect, locked
// database and full disk tests; here, the codes of both drivers side by side.
import { describe, expect, it } from "vitest";
import { storageError, storageProblem } from "./database-errors.js";

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
    [{ code: "23505" }, null], // unique_violation
    [{ code: "57P01" }, null], // admin_shutdown: the database went away, not busy
    [new Error("database or disk is full"), null], // only the driver's code counts, not the words
    [null, null],
  ])("%j is %s", (error, problem) => {
    expect(storageProblem(error)).toBe(problem);
  });

  it("becomes STORAGE_FULL (507) or DATABASE_BUSY (503), each with a Retry-After hint", () => {
    expect(storageError({ errcode: 13 })).toMatchObject({
      code: "STORAGE_FULL",
      status: 507,
      details: { retry_after_seconds: 60 },
    });
    expect(storageError({ code: "55P03" })).toMatchObject({
      code: "DATABASE_BUSY",
      status: 503,
      details: { retry_after_seconds: 5 },
    });
    expect(storageError(new Error("boom"))).toBeNull();
  });
});
