// The Pyodide snapshot kept between starts: a stored file is read back only for the same build and
// only while its bytes match the hash in its name; storing one leaves no other behind. Plain files
// in a temporary directory: no sandbox child is started here (sandbox-pool.test.ts starts them).
import {
  closeSync,
  fstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStoredSnapshot, snapshotKey, storeSnapshot } from "./snapshot-store.js";

const KEY = snapshotKey(["0.29.0", "runner", "v24.0.0", "x64"]);
const OTHER_KEY = snapshotKey(["0.30.0", "runner", "v24.0.0", "x64"]);
const bytesOf = (text: string) => new Uint8Array(Buffer.from(text.repeat(1000)));
const snapshots = (dir: string) => readdirSync(dir).filter((name) => name.endsWith(".snapshot"));

/** A descriptor's file from its start, as a child reads it (positioned reads). */
function fromStart(fd: number): string {
  const bytes = Buffer.alloc(fstatSync(fd).size);
  readSync(fd, bytes, 0, bytes.length, 0);
  return bytes.toString();
}

/** What the opened stored snapshot holds, read through its descriptor (which this closes); null when none. */
async function readStored(dir: string, key: string): Promise<string | null> {
  const stored = await openStoredSnapshot(dir, key);
  if (!stored) return null;
  try {
    return fromStart(stored.fd);
  } finally {
    closeSync(stored.fd);
  }
}

describe("snapshot store", () => {
  it("reads back what it stored, in a file only its owner can read", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "snapshot-store-")), "cache");
    const name = await storeSnapshot(dir, KEY, bytesOf("interpreter memory "));
    expect(snapshots(dir)).toEqual([name]);
    expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const stored = await openStoredSnapshot(dir, KEY);
    expect(stored?.path).toBe(join(dir, name));
    closeSync(stored?.fd as number);
    expect(await readStored(dir, KEY)).toBe("interpreter memory ".repeat(1000));
  });

  it("hands out a descriptor of the bytes it checked, whatever is renamed over the name afterwards", async () => {
    const dir = mkdtempSync(join(tmpdir(), "snapshot-store-"));
    const name = await storeSnapshot(dir, KEY, bytesOf("checked "));
    const stored = await openStoredSnapshot(dir, KEY);
    writeFileSync(join(dir, "other"), "replaced");
    renameSync(join(dir, "other"), join(dir, name));
    try {
      expect(fromStart(stored?.fd as number)).toBe("checked ".repeat(1000));
    } finally {
      closeSync(stored?.fd as number);
    }
  });

  it("refuses and removes a stored file whose bytes no longer match its name", async () => {
    const dir = mkdtempSync(join(tmpdir(), "snapshot-store-"));
    const name = await storeSnapshot(dir, KEY, bytesOf("interpreter memory "));
    truncateSync(join(dir, name), 100);
    expect(await readStored(dir, KEY)).toBeNull();
    expect(snapshots(dir)).toEqual([]);

    const changed = await storeSnapshot(dir, KEY, bytesOf("interpreter memory "));
    writeFileSync(join(dir, changed), bytesOf("something else was "));
    expect(await readStored(dir, KEY)).toBeNull();
    expect(snapshots(dir)).toEqual([]);
  });

  it("reads nothing for another build, and storing removes the snapshots of other builds", async () => {
    const dir = mkdtempSync(join(tmpdir(), "snapshot-store-"));
    const old = await storeSnapshot(dir, OTHER_KEY, bytesOf("old build "));
    expect(await readStored(dir, KEY)).toBeNull();
    expect(snapshots(dir)).toEqual([old]);
    const current = await storeSnapshot(dir, KEY, bytesOf("this build "));
    expect(snapshots(dir)).toEqual([current]);
    expect(await readStored(dir, KEY)).toBe("this build ".repeat(1000));
  });

  it("keeps one snapshot of a build: a newer one replaces it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "snapshot-store-"));
    await storeSnapshot(dir, KEY, bytesOf("first "));
    const second = await storeSnapshot(dir, KEY, bytesOf("second "));
    expect(snapshots(dir)).toEqual([second]);
    expect(await readStored(dir, KEY)).toBe("second ".repeat(1000));
  });

  it("reads nothing from a directory that does not exist, and ignores files it did not write", async () => {
    const dir = mkdtempSync(join(tmpdir(), "snapshot-store-"));
    expect(await readStored(join(dir, "missing"), KEY)).toBeNull();
    writeFileSync(join(dir, `python-${KEY}-not-a-hash.snapshot`), "x");
    writeFileSync(join(dir, "notes.txt"), "x");
    expect(await readStored(dir, KEY)).toBeNull();
    expect(readdirSync(dir).sort()).toEqual(["notes.txt", `python-${KEY}-not-a-hash.snapshot`]);
  });

  it("removes a temporary file a dead writer left long ago, and not one being written now", async () => {
    const dir = mkdtempSync(join(tmpdir(), "snapshot-store-"));
    const abandoned = join(dir, ".python-1-aaaaaaaaaaaa.tmp");
    const fresh = join(dir, ".python-2-bbbbbbbbbbbb.tmp");
    writeFileSync(abandoned, "half");
    writeFileSync(fresh, "half");
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(abandoned, hourAgo, hourAgo);
    const name = await storeSnapshot(dir, KEY, bytesOf("memory "));
    expect(readdirSync(dir).sort()).toEqual([".python-2-bbbbbbbbbbbb.tmp", name].sort());
    expect(readFileSync(fresh, "utf8")).toBe("half");
  });

  it("names what a snapshot depends on: any change of a part changes the key", () => {
    expect(snapshotKey(["a", "b"])).toBe(snapshotKey(["a", "b"]));
    expect(snapshotKey(["a", "b"])).not.toBe(snapshotKey(["a", "c"]));
    // Parts are not simply joined: moving text from one part to the next is another key.
    expect(snapshotKey(["ab", "c"])).not.toBe(snapshotKey(["a", "bc"]));
    expect(snapshotKey(["a"])).toMatch(/^[0-9a-f]{24}$/);
  });
});
