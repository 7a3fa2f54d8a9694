// Runs one child process of the subprocess runtime and hands its stdout and stderr to callbacks a
// line at a time, with a time limit and a cancel that kill it (with its process group when it has
// one of its own).
import { type ChildProcess, spawn } from "node:child_process";
import type { SandboxResult } from "../import-sandbox.js";
import { LineSplitter } from "./line-splitter.js";

export interface ChildLinesOptions {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** Own process group, so the whole tree can be stopped (the subprocess runtime). */
  detached?: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
  onStdoutLine?: (line: string) => void;
  onStderrLine?: (line: string) => void;
}

/** A callback's own failure is its caller's to report; the child's output goes on being read. */
function guarded(onLine: ((line: string) => void) | undefined): (line: string) => void {
  return (line) => {
    try {
      onLine?.(line);
    } catch {
      // see above
    }
  };
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

/** Resolves when the child has ended and all its output was read; never rejects. */
export function runChildLines(options: ChildLinesOptions): Promise<SandboxResult & { spawnError: Error | null }> {
  return new Promise((resolve) => {
    let timedOut = false;
    let aborted = false;
    let child: ChildProcess;
    try {
      child = spawn(options.file, options.args, {
        cwd: options.cwd,
        env: options.env,
        detached: options.detached ?? false,
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      resolve({ exitCode: null, timedOut, aborted, outOfMemory: false, spawnError: error as Error });
      return;
    }
    const stop = () => {
      if (options.detached) killGroup(child);
      else child.kill("SIGKILL");
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      stop();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
    const out = new LineSplitter(guarded(options.onStdoutLine));
    const err = new LineSplitter(guarded(options.onStderrLine));
    child.stdout?.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => err.push(chunk));
    let spawnError: Error | null = null;
    child.on("error", (error) => {
      spawnError = error;
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      out.end();
      err.end();
      // A child killed by a signal reports it as the shell would: 128 + its number (SIGKILL: 137).
      const exitCode = code ?? (signal ? 128 + (signalNumber(signal) ?? 0) : null);
      // A program that could not be started closes with the errno as its code (-2): no exit code.
      resolve({
        exitCode: spawnError ? null : exitCode,
        timedOut,
        aborted,
        outOfMemory: false,
        spawnError,
      });
    });
  });
}

const SIGNALS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGABRT: 6,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGTERM: 15,
};
function signalNumber(signal: NodeJS.Signals): number | undefined {
  return SIGNALS[signal];
}
