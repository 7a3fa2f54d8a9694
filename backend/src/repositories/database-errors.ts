import { AppError } from "../core/errors.js";

// Recognises a unique-constraint violation from either database driver.
export function isUniqueViolation(error: unknown): boolean {
  if (!error || typeof error !== "object") return false;
  const { code, errcode, message } = error as { code?: unknown; errcode?: unknown; message?: unknown };
  if (code === "23505") return true; // PostgreSQL unique_violation
  if (errcode === 2067 || errcode === 1555) return true; // SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY
  return typeof message === "string" && message.includes("UNIQUE constraint failed");
}

/**
 * A refusal of the database's storage that passes once the operator or another connection lets
 * go: the disk is full, or another connection held a lock longer than the busy timeout. The write
 * that met it changed nothing, so it can be tried again later.
 */
export type StorageProblem = "full" | "busy";

// SQLite primary result codes (node:sqlite reports the extended code in `errcode`; its low byte is
// the primary one).
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_FULL = 13;
// PostgreSQL SQLSTATEs: disk_full, lock_not_available (lock_timeout).
const PG_DISK_FULL = "53100";
const PG_LOCK_NOT_AVAILABLE = "55P03";

export function storageProblem(error: unknown): StorageProblem | null {
  if (!error || typeof error !== "object") return null;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
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

// What a refused client is told to wait: freeing disk space takes a person; a lock, a moment.
const STORAGE_FULL_RETRY_SECONDS = 60;
const DATABASE_BUSY_RETRY_SECONDS = 5;

/** STORAGE_FULL or DATABASE_BUSY for a storage problem (with Retry-After); null for any other error. */
export function storageError(error: unknown): AppError | null {
  switch (storageProblem(error)) {
    case "full":
      return new AppError("STORAGE_FULL", { retry_after_seconds: STORAGE_FULL_RETRY_SECONDS });
    case "busy":
      return new AppError("DATABASE_BUSY", { retry_after_seconds: DATABASE_BUSY_RETRY_SECONDS });
    default:
      return null;
  }
}
