// Runs user code (Code nodes, Python function tools) outside this process: every call gets a new
// child process with an empty environment and Node's permission model, which loads QuickJS or
// Pyodide, runs `main(...args)` once and exits. Nothing the code does reaches this process's
// memory, files or environment, and no interpreter is reused between calls.
// The child's side is sandbox-child.mjs; child-spawner.ts starts children (and keeps one Python
// child loaded ahead), child-command.ts builds their command line.

import type { RuntimeLanguage } from "./child-command.js";
import { type FailureCode, parseMessage, parseResultValue, readLines } from "./child-messages.js";
import { prepareSpare, startChild } from "./child-spawner.js";
import { LogBuffer } from "./log-buffer.mjs";
import { watchMemory } from "./memory-watchdog.js";

export type SandboxLanguage = RuntimeLanguage;

export interface SandboxLimits {
  timeoutMs: number;
  memoryMb: number;
}

export interface SandboxCall {
  language: SandboxLanguage;
  /** User source that defines a function `main`. */
  code: string;
  /** JSON-serialisable arguments passed to main(...args). */
  args: unknown[];
}

export type SandboxFailureCode = FailureCode;

export type SandboxResult =
  | { ok: true; value: unknown; logs: string[] }
  | { ok: false; code: SandboxFailureCode; message: string; logs: string[] };

// Loading the runtime is not the code's time: the timeout starts when the child says "started".
// Pyodide loads in ~1.4 s; this bound only catches a child that hangs while loading.
const STARTUP_TIMEOUT_MS = 60_000;
// QuickJS stops itself at the deadline; the kill is the backstop for JavaScript and the only stop
// for Python (Pyodide cannot be interrupted from its own thread).
const KILL_GRACE_MS = 250;
// What the child's resident memory may grow by beyond memoryMb once the runtime is loaded:
// host-side copies of the result and the logs, garbage not yet collected.
const RESIDENT_SLACK_MB = 64;
// Enough of the child's stderr to recognise a V8 out-of-memory crash; never shown to users.
const STDERR_TAIL_CHARS = 8 * 1024;
const V8_OUT_OF_MEMORY = /heap out of memory|Reached heap limit|Allocation failed/i;

/**
 * Runs `main(...args)` of the given code in a fresh sandbox child.
 * Resolves with the outcome of anything the code does; rejects only when no child can be started.
 * When `signal` aborts, the child is killed and the call resolves with CODE_ERROR "cancelled"
 * rather than rejecting, so that a caller never has to tell a sandbox failure from its own
 * cancellation by catching: it checks `signal.aborted`.
 */
export function runInSandbox(call: SandboxCall, limits: SandboxLimits, signal?: AbortSignal): Promise<SandboxResult> {
  const logs = new LogBuffer();
  const failure = (code: SandboxFailureCode, message: string): SandboxResult => ({
    ok: false,
    code,
    message,
    logs: logs.lines,
  });
  if (signal?.aborted) return Promise.resolve(failure("CODE_ERROR", "cancelled"));
  const request = JSON.stringify({
    code: call.code,
    args: call.args,
    timeoutMs: limits.timeoutMs,
    memoryMb: limits.memoryMb,
  });
  const tooMuchMemory = `The code used more than ${limits.memoryMb} MB.`;

  return new Promise<SandboxResult>((resolve, reject) => {
    const child = startChild(call.language, limits.memoryMb);
    const timers: NodeJS.Timeout[] = [];
    let stopWatchingMemory = () => {};
    let settled = false;
    let started = false;
    let expectingValue = false;
    let stderrTail = "";

    const settle = (outcome: SandboxResult | Error) => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      stopWatchingMemory();
      signal?.removeEventListener("abort", onAbort);
      child.kill("SIGKILL");
      prepareSpare(call.language, limits.memoryMb);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const fail = (code: SandboxFailureCode, message: string) => settle(failure(code, message));
    const onAbort = () => fail("CODE_ERROR", "cancelled");
    signal?.addEventListener("abort", onAbort, { once: true });
    timers.push(setTimeout(() => fail("CODE_ERROR", "The sandbox did not start in time."), STARTUP_TIMEOUT_MS));

    const onStarted = () => {
      if (started) return;
      started = true;
      const timeout = `The code ran longer than ${limits.timeoutMs} ms.`;
      timers.push(setTimeout(() => fail("CODE_TIMEOUT", timeout), limits.timeoutMs + KILL_GRACE_MS));
      if (child.pid === undefined) return;
      const allowedBytes = (limits.memoryMb + RESIDENT_SLACK_MB) * 1024 * 1024;
      stopWatchingMemory = watchMemory(child.pid, allowedBytes, () => fail("CODE_MEMORY", tooMuchMemory));
    };

    const onLine = (line: string) => {
      if (expectingValue) {
        const parsed = parseResultValue(line);
        settle(
          parsed.ok
            ? { ok: true, value: parsed.value, logs: logs.lines }
            : failure("CODE_RESULT_INVALID", parsed.message),
        );
        return;
      }
      const message = parseMessage(line);
      if (message === null) fail("CODE_ERROR", "The sandbox sent something that is not a sandbox message.");
      else if (message.type === "started") onStarted();
      else if (message.type === "log") logs.add(message.line);
      else if (message.ok) expectingValue = true;
      else fail(message.code, message.message);
    };

    // A result may be as large as the code's memory budget, not larger.
    readLines(child, limits.memoryMb * 1024 * 1024, {
      line: onLine,
      overflow: () => fail("CODE_MEMORY", `The result is larger than ${limits.memoryMb} MB.`),
    });
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    child.on("error", (error) => settle(error));
    // Reached with settled === false only when the child ended without a result.
    child.on("close", (exitCode, exitSignal) => {
      // V8 aborts when its heap is full; the kernel's OOM killer sends SIGKILL (this side kills
      // only after settling).
      if (exitSignal === "SIGABRT" || exitSignal === "SIGKILL" || V8_OUT_OF_MEMORY.test(stderrTail)) {
        fail("CODE_MEMORY", tooMuchMemory);
      } else {
        fail("CODE_ERROR", `The sandbox stopped unexpectedly (${exitSignal ?? `exit code ${exitCode}`}).`);
      }
    });
    // The child may die before reading its request (EPIPE); "close" reports that.
    child.stdin?.on("error", () => {});
    child.stdin?.end(request);
  });
}
