// Runs one child process and hands its stdout and stderr to callbacks a line at a time, with a
// time limit and a cancel, for both import sandbox runtimes (the Docker CLI, or the command
// itself). How to stop the work is the caller's: killing the Docker CLI alone would leave its
// container running.
import { type ChildProcess, spawn } from "node:child_process";
import type { SandboxResult } from "../import-sandbox.js";

// A runner line carries at most a 2 MB checkpoint (JSON, base64 inside); anything longer is not
// the protocol and is cut, so a child that never writes a newline cannot fill the server's memory.
export const MAX_LINE_CHARS = 8 * 1024 * 1024;

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
  /** Stops the work on a time limit or a cancel (default: SIGKILL to the child, or its group when detached). */
  stop?: (child: ChildProcess) => void | Promise<void>;
}

function lineSplitter(onLine: ((line: string) => void) | undefined) {
  let buffered = "";
  let cut = false;
  const emit = (line: string) => {
    if (!onLine) return;
    try {
      onLine(line);
    } catch {
      // A callback's own failure is its caller's to report; the child's output goes on being read.
    }
  };
  return {
    push(chunk: string) {
      let text = buffered + chunk;
      let newline = text.indexOf("\n");
      while (newline !== -1) {
        const line = text.slice(0, newline);
        if (!cut) emit((line.endsWith("\r") ? line.slice(0, -1) : line).slice(0, MAX_LINE_CHARS));
        cut = false;
        text = text.slice(newline + 1);
        newline = text.indexOf("\n");
      }
      if (text.length > MAX_LINE_CHARS) {
        if (!cut) emit(text.slice(0, MAX_LINE_CHARS));
        cut = true;
        text = "";
      }
      buffered = text;
    },
    end() {
      if (buffered.length > 0 && !cut) emit(buffered);
      buffered = "";
    },
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
      const custom = options.stop;
      if (custom) void Promise.resolve(custom(child)).catch(() => killGroup(child));
      else if (options.detached) killGroup(child);
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
    const out = lineSplitter(options.onStdoutLine);
    const err = lineSplitter(options.onStderrLine);
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => out.push(chunk));
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => err.push(chunk));
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
