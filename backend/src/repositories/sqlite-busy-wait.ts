// Waiting for a lock that another SQLite connection holds, without blocking the event loop: the
// statement is tried again until it gets the lock or the deadline passes; then SQLITE_BUSY goes to
// the caller (answered DATABASE_BUSY). A statement refused with SQLITE_BUSY changed nothing, so
// trying it again is safe.
//
// The connections of one process (the request thread's and each run thread's) tell each other when
// they let go of the write lock, through a counter in memory the threads share: a waiter tries
// again as soon as the counter moves. With pauses alone, a hook's insert waiting behind a run
// thread's 2 ms transaction slept 1 + 2 + 5 + 10 + 15 ms, and every read queued on its connection
// slept with it (the hook answer's p99 at 100 in flight). A lock held by another process moves no
// counter: the pauses still bound each wait.
import { setTimeout as sleep } from "node:timers/promises";
import { storageProblem } from "./database-errors.js";

// SQLite's own busy handler waits about this long between tries (sqliteDefaultBusyCallback).
const PAUSES_MS = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];

let releases = new Int32Array(new SharedArrayBuffer(4));

/** The counter this thread's connections move, to hand to a thread the process starts. */
export function lockReleases(): SharedArrayBuffer {
  return releases.buffer as SharedArrayBuffer;
}

/** In a thread the process started: share its connections' counter (before opening any). */
export function shareLockReleases(buffer: SharedArrayBuffer): void {
  releases = new Int32Array(buffer);
}

/** A connection of this process has let go of the write lock (commit, rollback, lone write). */
export function lockReleased(): void {
  Atomics.add(releases, 0, 1);
  Atomics.notify(releases, 0);
}

export async function waitWhileBusy<T>(
  attempt: () => T,
  deadline: number,
  pausesMs: readonly number[] = PAUSES_MS,
): Promise<T> {
  for (let tries = 0; ; tries++) {
    const seen = Atomics.load(releases, 0);
    try {
      return attempt();
    } catch (error) {
      if (storageProblem(error) !== "busy") throw error;
      const left = deadline - Date.now();
      if (left <= 0) throw error;
      const pause = Math.min(pausesMs[Math.min(tries, pausesMs.length - 1)] as number, left);
      const released = Atomics.waitAsync(releases, 0, seen, pause);
      // Released since the attempt: try again at once (after other callbacks had their turn).
      await (released.async ? released.value : sleep(0));
    }
  }
}
