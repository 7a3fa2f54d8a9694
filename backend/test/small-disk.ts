// A small file system of its own (tmpfs) that a test fills to the last byte and frees again: a
// real full disk, ENOSPC from the kernel. Mounting needs root (CI runs as root); anywhere else the
// test fails and says why, it is never skipped.
import { execFileSync } from "node:child_process";
import { chownSync, closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SmallDisk {
  path: string;
  /** Writes a filler file until the disk has no byte left. */
  fill(): void;
  /** Removes the filler: the space is back. */
  free(): void;
  unmount(): void;
}

export function mountSmallDisk(sizeMb: number, owner?: { uid: number; gid: number }): SmallDisk {
  const path = mkdtempSync(join(tmpdir(), "superstep-small-disk-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMb}m,mode=0700`, "tmpfs", path], { stdio: "pipe" });
  } catch (error) {
    rmSync(path, { recursive: true, force: true });
    const reason = (error as { stderr?: Buffer }).stderr?.toString().trim() || (error as Error).message;
    throw new Error(
      `this test fills a small tmpfs to prove what a full disk does, and mounting one failed (run the tests as root, as CI does): ${reason}`,
    );
  }
  if (owner) chownSync(path, owner.uid, owner.gid);
  const filler = join(path, "filler");
  return {
    path,
    fill: () => {
      const fd = openSync(filler, "a");
      const chunk = Buffer.alloc(64 * 1024, 1);
      try {
        // Smaller and smaller writes until not one byte more fits.
        for (let size = chunk.length; size >= 1; size = Math.floor(size / 2)) {
          for (;;) {
            try {
              if (writeSync(fd, chunk, 0, size) < size) break;
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code === "ENOSPC") break;
              throw error;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free: () => rmSync(filler, { force: true }),
    unmount: () => {
      // Lazily: a handle a failed test left open must not keep the mount.
      execFileSync("umount", ["-l", path], { stdio: "pipe" });
      rmSync(path, { recursive: true, force: true });
    },
  };
}
