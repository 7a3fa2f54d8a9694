// Recognises a unique-constraint violation from either database driver.
export function isUniqueViolation(error: unknown): boolean {
  if (!error || typeof error !== "object") return false;
  const { code, errcode, message } = error as { code?: unknown; errcode?: unknown; message?: unknown };
  if (code === "23505") return true; // PostgreSQL unique_violation
  if (errcode === 2067 || errcode === 1555) return true; // SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY
  return typeof message === "string" && message.includes("UNIQUE constraint failed");
}
