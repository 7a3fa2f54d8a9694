// How the database refused: a unique key taken, a full disk, a lock held elsewhere, or the server
// out of reach, recognised from either driver's errors.
import { AppError } from "../core/errors.js";
import { SYNC_FAILED_CODE } from "./wal-durability.js";

// Recognises a unique-constraint violation from either database driver.
export function isUniqueViolation(error: unknown): boolean {
  if (!error || typeof error !== "object") return false;
  const { code, errcode, message } = error as { code?: unknown; errcode?: unknown; message?: unknown };
  if (code === "23505") return true; // PostgreSQL unique_violation
  if (errcode === 2067 || errcode === 1555) return true; // SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY
  return typeof message === "string" && message.includes("UNIQUE constraint failed");
}

/**
 * A refusal of the database's storage: the disk is full, or another connection held a lock longer
 * than the busy timeout (both pass once the operator or the other connection lets go; the write
 * that met it changed nothing, so it can be tried again later), or the disk failed to confirm a
 * write ("unsynced": nothing more is acknowledged until the studio restarts, see
 * wal-durability.ts).
 */
export type StorageProblem = "full" | "busy" | "unsynced";

// SQLite primary result codes (node:sqlite reports the extended code in `errcode`; its low byte is
// the primary one).
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_FULL = 13;
// SQLite's own failed fsync (SQLITE_IOERR_FSYNC, an extended code): the same trouble as ours.
const SQLITE_IOERR_FSYNC = 1034;
// PostgreSQL SQLSTATEs: disk_full, lock_not_available (lock_timeout).
const PG_DISK_FULL = "53100";
const PG_LOCK_NOT_AVAILABLE = "55P03";

export function storageProblem(error: unknown): StorageProblem | null {
  if (!error || typeof error !== "object") return null;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  if (code === SYNC_FAILED_CODE || errcode === SQLITE_IOERR_FSYNC) return "unsynced";
  if (typeof errcode === "number") {
    const primary = errcode & 0xff;
    if (primary === SQLITE_FULL) return "full";
    if (primary === SQLITE_BUSY || primary === SQLITE_LOCKED) return "busy";
    return null;
  }
  if (code === PG_DISK_FULL) return "full";
  if (code === PG_LOCK_NOT_AVAILABLE) return "busy";
  return null;
}

// A PostgreSQL server that cannot be reached, or is shutting down or restarting (crash recovery,
// as after its write-ahead log's disk filled): the connection's errors, by SQLSTATE, by socket
// error, or by node-postgres's own message (it gives those no code).
const PG_AWAY_STATES = new Set(["57P01", "57P02", "57P03", "53300"]);
const SOCKET_ERRORS = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH"]);
const PG_NOT_ACCEPTING_STATE = "55000";
const PG_NOT_ACCEPTING = /^database ".*" is not currently accepting connections$/;
const PG_CONNECTION_MESSAGES = [
  "Connection terminated",
  "timeout exceeded when trying to connect",
  "Client has encountered a connection error",
];

/** The database cannot be reached (PostgreSQL down, restarting, or refusing connections). */
export function isDatabaseAway(error: unknown): boolean {
  if (!error || typeof error !== "object") return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === "string") {
    if (code.startsWith("08") && code.length === 5) return true; // connection_exception
    if (PG_AWAY_STATES.has(code) || SOCKET_ERRORS.has(code)) return true;
  }
  if (typeof message !== "string") return false;
  // A database closed to new connections (ALLOW_CONNECTIONS false, maintenance): SQLSTATE 55000,
  // a class too wide to count on its own, so its message decides.
  if (code === PG_NOT_ACCEPTING_STATE && PG_NOT_ACCEPTING.test(message)) return true;
  return PG_CONNECTION_MESSAGES.some((text) => message.startsWith(text));
}

// What a refused client is told to wait: freeing disk space takes a person; a lock, a moment.
const STORAGE_FULL_RETRY_SECONDS = 60;
const DATABASE_BUSY_RETRY_SECONDS = 5;
const DATABASE_AWAY_RETRY_SECONDS = 10;
// A failed sync passes only with a restart, which takes a person.
const SYNC_FAILED_RETRY_SECONDS = 60;

/**
 * STORAGE_FULL, DATABASE_BUSY or DATABASE_SYNC_FAILED for a storage problem, DATABASE_UNAVAILABLE
 * for a database that cannot be reached (each with Retry-After); null for any other error.
 */
export function databaseAppError(error: unknown): AppError | null {
  switch (storageProblem(error)) {
    case "full":
      return new AppError("STORAGE_FULL", { retry_after_seconds: STORAGE_FULL_RETRY_SECONDS });
    case "busy":
      return new AppError("DATABASE_BUSY", { retry_after_seconds: DATABASE_BUSY_RETRY_SECONDS });
    case "unsynced":
      return new AppError("DATABASE_SYNC_FAILED", { retry_after_seconds: SYNC_FAILED_RETRY_SECONDS });
  }
  if (isDatabaseAway(error)) {
    return new AppError("DATABASE_UNAVAILABLE", { retry_after_seconds: DATABASE_AWAY_RETRY_SECONDS });
  }
  return null;
}
