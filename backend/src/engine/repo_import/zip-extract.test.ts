import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeZip, type ZipEntrySpec } from "../../../test/zip-fixture.js";
import { AppError } from "../../core/errors.js";
import { entryKind, extractZip, unsafeEntryName } from "./zip-extract.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "superstep-zip-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function unpack(entries: ZipEntrySpec[], limits = { maxBytes: 1024 * 1024, maxEntries: 100 }) {
  const zipPath = join(dir, "upload.zip");
  writeFileSync(zipPath, makeZip(entries));
  const lines: string[] = [];
  const bytes = await extractZip(zipPath, join(dir, "src"), limits, (line) => lines.push(line));
  return { bytes, lines };
}

async function refusal(entries: ZipEntrySpec[], limits?: { maxBytes: number; maxEntries: number }) {
  try {
    await unpack(entries, limits);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error("the zip was accepted");
}

function filesUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe("unzipping an upload", () => {
  it("unpacks plain files and directories, stored and deflated, and counts their bytes", async () => {
    const { bytes, lines } = await unpack([
      { name: "proj/" },
      { name: "proj/langgraph.json", data: "{}" },
      { name: "proj/src/graph.py", data: "x = 1\n".repeat(100), deflate: true },
    ]);
    expect(bytes).toBe(2 + 600);
    expect(readFileSync(join(dir, "src/proj/src/graph.py"), "utf8")).toBe("x = 1\n".repeat(100));
    expect(lines).toEqual(["unzip: 3 entries", "unzip: 602 bytes written"]);
  });

  it("names every unsafe entry name for what it is", () => {
    expect(unsafeEntryName("../x")).toMatch(/climbs out/);
    expect(unsafeEntryName("a/../../x")).toMatch(/climbs out/);
    expect(unsafeEntryName("/etc/x")).toMatch(/absolute/);
    expect(unsafeEntryName("..\\x")).toMatch(/backslash/);
    expect(unsafeEntryName("C:/x")).toMatch(/drive letter/);
    expect(unsafeEntryName("c:x")).toMatch(/drive letter/);
    expect(unsafeEntryName("a\0b")).toMatch(/NUL/);
    expect(unsafeEntryName("src/..a/ok.py")).toBeNull();
    expect(entryKind({ fileName: "link", externalFileAttributes: (0o120777 << 16) >>> 0 })).toBe("other");
    expect(entryKind({ fileName: "f", externalFileAttributes: (0o100644 << 16) >>> 0 })).toBe("file");
    expect(entryKind({ fileName: "d/", externalFileAttributes: 0 })).toBe("dir");
  });

  it.each([
    ["../x", "climbs out"],
    ["a/../../x", "climbs out"],
    ["/etc/x", "absolute"],
    ["..\\x", "backslash"],
    ["C:/Windows/x", "drive letter"],
  ])("refuses the zip-slip entry %s, writing nothing outside", async (name, reason) => {
    const error = await refusal([
      { name: "ok.py", data: "ok" },
      { name, data: "pwned" },
    ]);
    expect(error.code).toBe("IMPORT_ZIP_UNSAFE_ENTRY");
    expect(error.message).toContain(reason);
    expect((error.details as { entry: string }).entry).toBe(name);
    expect(existsSync(join(dir, "x"))).toBe(false);
    expect(filesUnder(dir).filter((file) => readFileSync(file, "utf8") === "pwned")).toEqual([]);
  });

  it("refuses a symlink entry, without creating any link", async () => {
    const error = await refusal([{ name: "passwd", data: "/etc/passwd", mode: 0o120777 }]);
    expect(error.code).toBe("IMPORT_ZIP_UNSAFE_ENTRY");
    expect(error.message).toMatch(/symlink/);
    expect(existsSync(join(dir, "src/passwd"))).toBe(false);
  });

  it("refuses more entries than allowed before unpacking any", async () => {
    const entries = Array.from({ length: 11 }, (_, i) => ({ name: `f${i}.py`, data: "x" }));
    const error = await refusal(entries, { maxBytes: 1024, maxEntries: 10 });
    expect(error.code).toBe("IMPORT_ZIP_TOO_MANY_ENTRIES");
    expect(error.details).toEqual({ entries: 11, max: 10 });
    expect(filesUnder(join(dir, "src"))).toEqual([]);
  });

  it("refuses a zip bomb whose header tells the truth, before writing past the limit", async () => {
    const zeros = Buffer.alloc(5 * 1024 * 1024);
    const error = await refusal([{ name: "bomb.bin", data: zeros, deflate: true }], {
      maxBytes: 1024 * 1024,
      maxEntries: 10,
    });
    expect(error.code).toBe("IMPORT_SOURCE_TOO_LARGE");
    expect(existsSync(join(dir, "src/bomb.bin"))).toBe(false);
  });

  it("refuses a zip bomb whose header lies about its size, stopping at the limit", async () => {
    const zeros = Buffer.alloc(5 * 1024 * 1024);
    const error = await refusal([{ name: "bomb.bin", data: zeros, deflate: true, claimedSize: 10 }], {
      maxBytes: 1024 * 1024,
      maxEntries: 10,
    });
    expect(["IMPORT_SOURCE_TOO_LARGE", "IMPORT_ZIP_INVALID"]).toContain(error.code);
    const written = existsSync(join(dir, "src/bomb.bin")) ? statSync(join(dir, "src/bomb.bin")).size : 0;
    expect(written).toBeLessThanOrEqual(1024 * 1024);
  });

  it("refuses many small files that together pass the limit, counting what is written", async () => {
    const entries = Array.from({ length: 5 }, (_, i) => ({
      name: `f${i}.bin`,
      data: Buffer.alloc(300),
      deflate: true,
    }));
    const error = await refusal(entries, { maxBytes: 1000, maxEntries: 10 });
    expect(error.code).toBe("IMPORT_SOURCE_TOO_LARGE");
  });

  it("refuses a file that is not a zip, and the same entry twice", async () => {
    const notZip = join(dir, "upload.zip");
    writeFileSync(notZip, "this is not a zip");
    await expect(
      extractZip(notZip, join(dir, "src"), { maxBytes: 1000, maxEntries: 10 }, () => {}),
    ).rejects.toMatchObject({
      code: "IMPORT_ZIP_INVALID",
    });
    const twice = await refusal([
      { name: "a.py", data: "1" },
      { name: "a.py", data: "2" },
    ]);
    expect(twice.code).toBe("IMPORT_ZIP_UNSAFE_ENTRY");
  });
});
