// Waiting for a lock that another SQLite connection (another process) holds, without blocking the
// event loop: the statement is tried again after short pauses until it gets the lock or the
// deadline passes; then SQLITE_BUSY goes to the caller (answered DATABASE_BUSY). A statement
// refused with SQLITE_BUSY changed nothing, so trying it again is safe.
import { setTimeout as sleep } from "node:timers/promises";
import { storageProblem } from "./database-errors.js";

// SQLite's own busy handler waits about this long between tries (sqliteDefaultBusyCallback).
const PAUSES_MS = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];

export async function waitWhileBusy<T>(attempt: () => T, deadline: number): Promise<T> {
  for (let tries = 0; ; tries++) {
    try {
      return attempt();
    } catch (error) {
      if (storageProblem(error) !== "busy") throw error;
      const left = deadline - Date.now();
      if (left <= 0) throw error;
      const pause = PAUSES_MS[Math.min(tries, PAUSES_MS.length - 1)] as number;
      await sleep(Math.min(pause, left));
    }
  }
}
