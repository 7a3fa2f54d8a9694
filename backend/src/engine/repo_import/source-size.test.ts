import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AppError } from "../../core/errors.js";
import { assertSourceSize, sourceBytes, watchSize } from "./source-size.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "superstep-size-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("source size", () => {
  it("counts files, not .git at the top, nor what a symlink points to", async () => {
    mkdirSync(join(dir, "src/.git"), { recursive: true });
    mkdirSync(join(dir, ".git"));
    writeFileSync(join(dir, "a.py"), "x".repeat(100));
    writeFileSync(join(dir, "src/.git/b"), "x".repeat(10));
    writeFileSync(join(dir, ".git/pack"), "x".repeat(1000));
    symlinkSync("/etc/passwd", join(dir, "link"));
    expect(await sourceBytes(dir, 1e9)).toBe(110);
    expect(await sourceBytes(dir, 1e9, true)).toBe(1110);
    expect(await assertSourceSize(dir, 110)).toBe(110);
    const refused = await assertSourceSize(dir, 109).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe("IMPORT_SOURCE_TOO_LARGE");
  });

  it("watches a directory being written and says when it passes the limit, .git included", async () => {
    writeFileSync(join(dir, "small"), "x".repeat(10));
    let calls = 0;
    const over = new Promise<void>((resolve) => {
      watchSize(dir, 1000, 5, () => {
        calls += 1;
        resolve();
      });
    });
    writeFileSync(join(dir, ".git-pack"), "x".repeat(2000));
    await over;
    expect(calls).toBe(1);
  });
});
