// How large a source is on disk, `.git` not counted, without following symlinks; stops counting
// as soon as the limit is passed.
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { AppError } from "../../core/errors.js";

export async function sourceBytes(dir: string, limit: number, countGit = false): Promise<number> {
  let total = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop() as string;
    // A directory can vanish while a clone writes it (git renames its temporary files).
    const entries = await readdir(current, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.name === ".git" && current === dir && !countGit) continue;
      const path = join(current, entry.name);
      if (entry.isDirectory()) stack.push(path);
      else if (entry.isFile()) total += (await lstat(path).catch(() => ({ size: 0 }))).size;
      if (total > limit) return total;
    }
  }
  return total;
}

export async function assertSourceSize(dir: string, maxBytes: number): Promise<number> {
  const bytes = await sourceBytes(dir, maxBytes);
  if (bytes > maxBytes)
    throw new AppError("IMPORT_SOURCE_TOO_LARGE", {
      max_bytes: maxBytes,
      reason: "the source is larger than STUDIO_IMPORT_MAX_BYTES (.git not counted)",
    });
  return bytes;
}

/**
 * Measures `dir` (.git included) every `pollMs` while something writes it, and calls `onOver` once
 * when it passes `limit`; returns the function that stops watching.
 */
export function watchSize(dir: string, limit: number, pollMs: number, onOver: () => void): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const tick = async () => {
    if (stopped) return;
    const bytes = await sourceBytes(dir, limit, true).catch(() => 0);
    if (stopped) return;
    if (bytes > limit) {
      stopped = true;
      onOver();
      return;
    }
    timer = setTimeout(tick, pollMs);
    timer.unref();
  };
  timer = setTimeout(tick, pollMs);
  timer.unref();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
