// Unpacks an uploaded zip into a directory, one entry at a time, refusing anything that could
// write outside it or fill the disk: paths that climb out (`../x`, `..\x`), absolute paths and
// drive letters, symlinks, too many entries, and more bytes than allowed, counted as they are
// written (a header can claim any size).
import { createWriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, relative, resolve, sep } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Entry, ZipFile } from "yauzl";
import { AppError } from "../../core/errors.js";
import { lazyImport } from "../../core/lazy-import.js";
import type { LineSink } from "./import-log.js";

export interface ZipLimits {
  /** Bytes of all files together once unpacked. */
  maxBytes: number;
  maxEntries: number;
}

export const DEFAULT_MAX_ENTRIES = 20_000;

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

/** Why an entry's name is unsafe to write, or null; pure, so each case is tested on its own. */
export function unsafeEntryName(name: string): string | null {
  if (name.includes("\0")) return "contains NUL";
  if (name.includes("\\")) return "contains a backslash (a Windows path)";
  if (name.startsWith("/")) return "is an absolute path";
  if (/^[A-Za-z]:/.test(name)) return "starts with a drive letter";
  if (name.split("/").includes("..")) return "climbs out of the archive (..)";
  return null;
}

/** A symlink, a device or another special file: only plain files and directories are unpacked. */
export function entryKind(entry: Pick<Entry, "externalFileAttributes" | "fileName">): "file" | "dir" | "other" {
  const unixMode = (entry.externalFileAttributes >>> 16) & 0xffff;
  const type = unixMode & S_IFMT;
  if (type === S_IFLNK) return "other";
  if (type !== 0 && type !== S_IFREG && type !== S_IFDIR) return "other";
  if (entry.fileName.endsWith("/") || type === S_IFDIR) return "dir";
  return "file";
}

function unsafe(entry: string, reason: string) {
  return new AppError(
    "IMPORT_ZIP_UNSAFE_ENTRY",
    { entry, reason },
    `The zip's entry ${JSON.stringify(entry)} ${reason}.`,
  );
}

// Loaded with the first upload, not at start.
const yauzlModule = lazyImport(async () => (await import("yauzl")).default);

async function openZip(path: string): Promise<ZipFile> {
  const yauzl = await yauzlModule();
  return new Promise((resolvePromise, reject) => {
    // Names are checked here, not by yauzl, so that each refusal says what was wrong.
    yauzl.open(
      path,
      { lazyEntries: true, decodeStrings: true, strictFileNames: true, validateEntrySizes: true },
      (error, zip) =>
        error ? reject(new AppError("IMPORT_ZIP_INVALID", { reason: error.message })) : resolvePromise(zip),
    );
  });
}

// yauzl refuses some names itself before we see the entry; say so in our words.
function fromYauzl(error: Error): AppError {
  const match = /^(invalid characters in fileName|absolute path|invalid relative path): (.*)$/s.exec(error.message);
  if (match) return unsafe(match[2] as string, unsafeEntryName(match[2] as string) ?? "is not a safe path");
  return new AppError("IMPORT_ZIP_INVALID", { reason: error.message });
}

function readStream(zip: ZipFile, entry: Entry): Promise<NodeJS.ReadableStream> {
  return new Promise((resolvePromise, reject) => {
    zip.openReadStream(entry, (error, stream) => (error ? reject(fromYauzl(error)) : resolvePromise(stream)));
  });
}

/** Unpacks `zipPath` into `dest` (created); returns the bytes written. */
export async function extractZip(zipPath: string, dest: string, limits: ZipLimits, onLine: LineSink): Promise<number> {
  const zip = await openZip(zipPath);
  const root = resolve(dest);
  await mkdir(root, { recursive: true });
  try {
    if (zip.entryCount > limits.maxEntries)
      throw new AppError("IMPORT_ZIP_TOO_MANY_ENTRIES", { entries: zip.entryCount, max: limits.maxEntries });
    onLine(`unzip: ${zip.entryCount} entries`);
    let written = 0;
    const tooLarge = () =>
      new AppError("IMPORT_SOURCE_TOO_LARGE", {
        max_bytes: limits.maxBytes,
        reason: "the zip unpacks to more than STUDIO_IMPORT_MAX_BYTES",
      });
    const entries = (async function* () {
      while (true) {
        const next = await new Promise<Entry | null>((resolvePromise, reject) => {
          const onEntry = (entry: Entry) => done(() => resolvePromise(entry));
          const onEnd = () => done(() => resolvePromise(null));
          const onError = (error: Error) => done(() => reject(fromYauzl(error)));
          const done = (then: () => void) => {
            zip.off("entry", onEntry);
            zip.off("end", onEnd);
            zip.off("error", onError);
            then();
          };
          zip.on("entry", onEntry);
          zip.on("end", onEnd);
          zip.on("error", onError);
          zip.readEntry();
        });
        if (next === null) return;
        yield next;
      }
    })();
    for await (const entry of entries) {
      const name = entry.fileName;
      const reason = unsafeEntryName(name);
      if (reason) throw unsafe(name, reason);
      const kind = entryKind(entry);
      if (kind === "other") throw unsafe(name, "is a symlink or another special file");
      const target = resolve(root, name);
      // The checks above already keep every name inside; this one holds even if they missed a case.
      const inside = relative(root, target);
      if (inside.startsWith(`..${sep}`) || inside === ".." || resolve(root, inside) !== target)
        throw unsafe(name, "climbs out of the archive");
      if (kind === "dir") {
        await mkdir(target, { recursive: true });
        continue;
      }
      // A quick refusal for an honest header; the count below is what holds for a lying one.
      if (written + entry.uncompressedSize > limits.maxBytes) throw tooLarge();
      await mkdir(dirname(target), { recursive: true });
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          written += chunk.length;
          callback(written > limits.maxBytes ? tooLarge() : null, chunk);
        },
      });
      try {
        await pipeline(await readStream(zip, entry), counter, createWriteStream(target, { flags: "wx", mode: 0o644 }));
      } catch (error) {
        if (error instanceof AppError) throw error;
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EEXIST") throw unsafe(name, "appears twice in the archive");
        throw fromYauzl(error as Error);
      }
    }
    onLine(`unzip: ${written} bytes written`);
    return written;
  } finally {
    zip.close();
  }
}
