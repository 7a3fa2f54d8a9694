// How large a source is on disk, `.git` not counted, without following symlinks; stops counting
// as soon as the limit is passed.
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { AppError } from "../../core/errors.js";

export async function sourceBytes(dir: string, limit: number): Promise<number> {
  let total = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop() as string;
    for (const entry of await readdir(current, { withFileTypes: true })) {
      if (entry.name === ".git" && current === dir) continue;
      const path = join(current, entry.name);
      if (entry.isDirectory()) stack.push(path);
      else if (entry.isFile()) total += (await lstat(path)).size;
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
