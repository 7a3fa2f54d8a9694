// Clones a checked GitHub source with the git CLI, one shallow branch, in a way the repository
// cannot turn into code running here: no hooks, no submodules, no symlinks (checked out as plain
// files), https as the only transport, no prompt for a password, and an environment that holds
// none of the server's secrets nor the user's git configuration.
import { spawn } from "node:child_process";
import { AppError } from "../../core/errors.js";
import type { GithubSource } from "./github-source.js";
import { type LineSink, splitLines } from "./import-log.js";
import { watchSize } from "./source-size.js";

const SIZE_POLL_MS = 250;

export interface CloneOptions {
  source: GithubSource;
  /** Must not exist yet (git creates it). */
  dest: string;
  /** An empty directory git may use as HOME (nothing of the server's user is read). */
  home: string;
  timeoutMs: number;
  /**
   * Bytes the clone may take on disk while git writes it, .git included (its pack is about as large
   * as the checkout); git is stopped once passed, before a huge repository fills the disk.
   */
  maxDiskBytes: number;
  signal?: AbortSignal;
  onLine: LineSink;
  /**
   * A testing aid (STUDIO_TEST_IMPORT_GIT_MIRROR), never set from a request: clone
   * https://github.com/<owner>/<repo> from the bare repository <mirror>/<owner>/<repo>.git on this
   * machine instead, so that the real git clone is tested without the internet.
   */
  mirror?: string | null;
}

/** The git command line for a clone; pure, so the arguments are tested on their own. */
export function cloneArguments(source: GithubSource, remote: string, dest: string, fileAllowed: boolean): string[] {
  return [
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.symlinks=false",
    "-c",
    "protocol.allow=never",
    "-c",
    `protocol.${fileAllowed ? "file" : "https"}.allow=always`,
    "-c",
    "credential.helper=",
    "-c",
    "http.followRedirects=initial",
    "clone",
    "--depth",
    "1",
    "--no-recurse-submodules",
    "--single-branch",
    "--no-tags",
    ...(source.branch ? ["--branch", source.branch] : []),
    "--",
    remote,
    dest,
  ];
}

/** The clone's whole environment: PATH and a locale, nothing inherited that could hold a secret. */
export function cloneEnvironment(home: string, fileAllowed: boolean): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    LANG: "C",
    LC_ALL: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "/bin/false",
    SSH_ASKPASS: "/bin/false",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ALLOW_PROTOCOL: fileAllowed ? "file" : "https",
  };
}

export async function cloneRepository(options: CloneOptions): Promise<void> {
  const { source } = options;
  const fileAllowed = Boolean(options.mirror);
  const mirrorPath = options.mirror ? `${options.mirror.replace(/\/$/, "")}/${source.owner}/${source.repo}.git` : null;
  const remote = mirrorPath ? `file://${mirrorPath}` : source.cloneUrl;
  options.onLine(`git clone --depth 1 ${source.cloneUrl}${source.branch ? ` (branch ${source.branch})` : ""}`);
  const child = spawn("git", cloneArguments(source, remote, options.dest, fileAllowed), {
    env: cloneEnvironment(options.home, fileAllowed),
    stdio: ["ignore", "pipe", "pipe"],
    detached: false,
  });
  const tail: string[] = [];
  const onText = splitLines((line) => {
    // Never show where a test mirror lives; people see the GitHub URL they gave.
    const shown = mirrorPath ? line.split(remote).join(source.cloneUrl).split(mirrorPath).join(source.cloneUrl) : line;
    tail.push(shown);
    if (tail.length > 20) tail.shift();
    options.onLine(shown);
  });
  child.stdout.on("data", onText);
  child.stderr.on("data", onText);
  let stoppedFor: "timeout" | "aborted" | "size" | null = null;
  const stop = (why: "timeout" | "aborted" | "size") => {
    stoppedFor ??= why;
    child.kill("SIGKILL");
  };
  const timer = setTimeout(() => stop("timeout"), options.timeoutMs);
  const stopWatching = watchSize(options.dest, options.maxDiskBytes, SIZE_POLL_MS, () => stop("size"));
  const onAbort = () => stop("aborted");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (exitCode) => resolve(exitCode));
    });
    onText.flush();
    if (stoppedFor === "timeout")
      throw new AppError("IMPORT_CLONE_FAILED", { reason: `git clone took longer than ${options.timeoutMs / 1000}s` });
    if (stoppedFor === "aborted") throw new AppError("IMPORT_CLONE_FAILED", { reason: "the import was stopped" });
    if (stoppedFor === "size")
      throw new AppError("IMPORT_SOURCE_TOO_LARGE", {
        max_bytes: options.maxDiskBytes,
        reason: "the clone grew past twice STUDIO_IMPORT_MAX_BYTES on disk (.git included) and was stopped",
      });
    if (code !== 0) {
      const said = tail.filter((line) => /fatal|error|not found|could not/i.test(line)).join(" ");
      throw new AppError("IMPORT_CLONE_FAILED", { reason: said || `git exited with code ${code}` });
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    // git missing from PATH, most likely.
    throw new AppError("IMPORT_CLONE_FAILED", { reason: (error as Error).message });
  } finally {
    clearTimeout(timer);
    stopWatching();
    options.signal?.removeEventListener("abort", onAbort);
  }
}
