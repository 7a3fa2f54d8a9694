// The download step: puts a source on disk under <job dir>/src — a shallow git clone of a checked
// GitHub source, or an uploaded zip unpacked safely — then refuses it when it is too large, and
// finds the project root (the sub-directory, or a zip's one top folder).
import { lstat, mkdir, readdir, realpath, rm } from "node:fs/promises";
import { join, sep } from "node:path";
import { AppError } from "../../core/errors.js";
import { cloneRepository } from "./git-clone.js";
import type { GithubSource } from "./github-source.js";
import type { LineSink } from "./import-log.js";
import { assertSourceSize } from "./source-size.js";
import { DEFAULT_MAX_ENTRIES, extractZip } from "./zip-extract.js";

export type SourceRequest = { kind: "github"; source: GithubSource } | { kind: "zip"; zipPath: string };

export interface DownloadOptions {
  jobDir: string;
  maxBytes: number;
  cloneTimeoutMs: number;
  signal?: AbortSignal;
  onLine: LineSink;
  /** Testing aid only (see CloneOptions.mirror). */
  gitMirror?: string | null;
}

export interface DownloadedSource {
  /** Where the project is: <job dir>/src, or a sub-directory of it. */
  root: string;
  bytes: number;
}

export const CLONE_TIMEOUT_MS = 10 * 60 * 1000;

async function subdirectory(src: string, subdir: string): Promise<string> {
  let current = src;
  for (const part of subdir.split("/")) {
    current = join(current, part);
    const info = await lstat(current).catch(() => null);
    if (!info?.isDirectory()) throw new AppError("IMPORT_SUBDIR_NOT_FOUND", { subdir });
  }
  // Every part was a real directory, never a link; the real path proves it stays inside.
  const real = await realpath(current);
  if (!real.startsWith(`${await realpath(src)}${sep}`)) throw new AppError("IMPORT_SUBDIR_INVALID", { subdir });
  return current;
}

/** A zip made by "Download ZIP" holds one folder (repo-main/): that folder is the project. */
async function zipRoot(src: string): Promise<string> {
  const entries = (await readdir(src, { withFileTypes: true })).filter((e) => e.name !== "__MACOSX");
  const only = entries[0];
  return entries.length === 1 && only?.isDirectory() ? join(src, only.name) : src;
}

export async function downloadSource(request: SourceRequest, options: DownloadOptions): Promise<DownloadedSource> {
  const src = join(options.jobDir, "src");
  await rm(src, { recursive: true, force: true });
  if (request.kind === "github") {
    const home = join(options.jobDir, "git-home");
    await mkdir(home, { recursive: true });
    try {
      await cloneRepository({
        source: request.source,
        dest: src,
        home,
        timeoutMs: options.cloneTimeoutMs,
        maxDiskBytes: 2 * options.maxBytes,
        signal: options.signal,
        onLine: options.onLine,
        mirror: options.gitMirror,
      });
    } finally {
      await rm(home, { recursive: true, force: true });
    }
    const bytes = await assertSourceSize(src, options.maxBytes);
    options.onLine(`source: ${bytes} bytes (.git not counted)`);
    const root = request.source.subdir ? await subdirectory(src, request.source.subdir) : src;
    return { root, bytes };
  }
  try {
    const bytes = await extractZip(
      request.zipPath,
      src,
      { maxBytes: options.maxBytes, maxEntries: DEFAULT_MAX_ENTRIES },
      options.onLine,
    );
    return { root: await zipRoot(src), bytes };
  } catch (error) {
    // Nothing of a refused archive is kept.
    await rm(src, { recursive: true, force: true });
    throw error;
  } finally {
    await rm(request.zipPath, { force: true });
  }
}
