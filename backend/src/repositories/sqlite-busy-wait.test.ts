// A statement refused with SQLITE_BUSY is tried again as soon as a connection of the process lets
// go of the write lock (the counter the threads share moves), not after its pause; with no release,
// the pauses bound the wait and the deadline ends it with the busy error.
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { lockReleased, lockReleases, waitWhileBusy } from "./sqlite-busy-wait.js";

const HOUR_MS = 3_600_000;

function busyError(): Error {
  return Object.assign(new Error("database is locked"), { code: "ERR_SQLITE_ERROR", errcode: 5 });
}

/** Refused as busy `times` times (calling `onRefused` each time), then answers "written". */
function refusedThen(times: number, onRefused: (tries: number) => void = () => {}) {
  let tries = 0;
  return () => {
    tries++;
    if (tries <= times) {
      onRefused(tries);
      throw busyError();
    }
    return "written";
  };
}

describe("waiting while the database is busy", () => {
  it("tries again as soon as another thread of the process lets go of the lock, not after its pause", async () => {
    // The run threads get the counter as the worker below does, and move it on each release.
    const releasing = new Worker(
      `const { workerData, parentPort } = require("node:worker_threads");
       parentPort.once("message", () => {
         const counter = new Int32Array(workerData);
         Atomics.add(counter, 0, 1);
         Atomics.notify(counter, 0);
       });`,
      { eval: true, workerData: lockReleases() },
    );
    try {
      // Refused once; the pause that follows is an hour unless the release wakes the wait.
      const written = waitWhileBusy(
        refusedThen(1, () => setImmediate(() => releasing.postMessage("release"))),
        Date.now() + 2 * HOUR_MS,
        [HOUR_MS],
      );
      await expect(written).resolves.toBe("written");
    } finally {
      await releasing.terminate();
    }
  });

  it("does not miss a release between the refused attempt and the wait", async () => {
    // The lock is let go right after the refusal, before the wait begins.
    const written = waitWhileBusy(
      refusedThen(2, () => lockReleased()),
      Date.now() + 2 * HOUR_MS,
      [HOUR_MS],
    );
    await expect(written).resolves.toBe("written");
  });

  it("gives up with the busy error at the deadline when nothing lets go of the lock", async () => {
    const tries: number[] = [];
    const written = waitWhileBusy(
      refusedThen(Number.POSITIVE_INFINITY, (n) => tries.push(n)),
      Date.now() + 30,
      [1, 2, 5],
    );
    await expect(written).rejects.toMatchObject({ message: "database is locked" });
    expect(tries.length).toBeGreaterThan(1);
  });

  it("hands any other error to the caller at once", async () => {
    let tries = 0;
    const written = waitWhileBusy(
      () => {
        tries++;
        throw new Error("no such table: runs");
      },
      Date.now() + HOUR_MS,
      [HOUR_MS],
    );
    await expect(written).rejects.toThrow("no such table: runs");
    expect(tries).toBe(1);
  });
});
