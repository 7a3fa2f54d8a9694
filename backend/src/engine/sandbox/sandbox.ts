// Runs user code (Code nodes, Python function tools) outside this process, in sandbox children
// with an empty environment and Node's permission model, which run QuickJS or Pyodide. Nothing the
// code does reaches this process's memory, files or environment, and nothing one call does is
// seen by another: a JavaScript call gets a fresh QuickJS instance, a Python call a child started
// from a memory snapshot taken before any user code ran, which serves no other call unless both
// calls name the same scope (one run's turn, within one workflow), and each call runs in a fresh
// namespace.
// The child's side is sandbox-child.mjs; sandbox-pool.ts keeps children ready ahead of need,
// sandbox-process.ts speaks to one child, child-command.ts builds its command line.

import type { RuntimeLanguage } from "./child-command.js";
import { type FailureCode, parseMessage, parseResultValue } from "./child-messages.js";
import { LogBuffer } from "./log-buffer.mjs";
import { watchMemory } from "./memory-watchdog.js";
import {
  acquireChild,
  type ChildRelease,
  DEFAULT_MOST_WARM_CHILDREN,
  DEFAULT_WARM_CHILDREN,
  releaseChild,
} from "./sandbox-pool.js";
import { type SandboxProcess, SandboxStartError } from "./sandbox-process.js";

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

export interface SandboxOptions {
  /** Children of this language kept ready after its first call (STUDIO_CODE_WARM). */
  warm?: number;
  /** What that may grow to while calls find none ready (STUDIO_CODE_WARM_MAX). */
  warmMax?: number;
  /** Where the Python snapshot is kept between starts of the server (STUDIO_DATA_DIR/cache). */
  snapshotDir?: string;
  /** How long the call may wait for a child to be ready (default: a minute). */
  startupTimeoutMs?: number;
  /**
   * Python calls of the same scope may run one after another in one child (the calls of one run's
   * turn, within one workflow); calls of different scopes, or without one, never share a child.
   */
  scope?: string;
}

export type SandboxFailureCode = FailureCode;

export type SandboxResult =
  | { ok: true; value: unknown; logs: string[] }
  | { ok: false; code: SandboxFailureCode; message: string; logs: string[] };

// Loading the runtime is not the code's time: the timeout starts when the child says "started".
// Pyodide loads in seconds (from its snapshot in well under one); this bound only catches a child
// that hangs while loading.
const STARTUP_TIMEOUT_MS = 60_000;
// QuickJS stops itself at the deadline; the kill is the backstop for JavaScript and the only stop
// for Python (Pyodide cannot be interrupted from its own thread).
const KILL_GRACE_MS = 250;
// What the child's resident memory may grow by beyond memoryMb once the runtime is loaded:
// host-side copies of the result and the logs, garbage not yet collected.
const RESIDENT_SLACK_MB = 64;
const V8_OUT_OF_MEMORY = /heap out of memory|Reached heap limit|Allocation failed/i;

/**
 * Runs `main(...args)` of the given code in a sandbox child.
 * Resolves with the outcome of anything the code does; rejects only when no child can be started.
 * When `signal` aborts (while the call waits for a child too), the call ends at once with
 * CODE_ERROR "cancelled" and its child, if it had one, is killed; it resolves rather than rejects,
 * so that a caller never has to tell a sandbox failure from its own cancellation by catching: it
 * checks `signal.aborted`.
 */
export function runInSandbox(
  call: SandboxCall,
  limits: SandboxLimits,
  signal?: AbortSignal,
  options: SandboxOptions = {},
): Promise<SandboxResult> {
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
    // A Python child waits for another call of its scope instead of exiting after this one.
    keep: options.scope !== undefined,
  });
  const tooMuchMemory = `The code used more than ${limits.memoryMb} MB.`;

  return new Promise<SandboxResult>((resolve, reject) => {
    const lease = acquireChild(
      call.language,
      limits.memoryMb,
      {
        warm: options.warm ?? DEFAULT_WARM_CHILDREN,
        most: options.warmMax ?? DEFAULT_MOST_WARM_CHILDREN,
        ...(options.snapshotDir === undefined ? {} : { snapshotDir: options.snapshotDir }),
      },
      options.scope,
    );
    let child: SandboxProcess | null = null;
    const timers: NodeJS.Timeout[] = [];
    let stopWatchingMemory = () => {};
    let settled = false;
    let started = false;
    let expectingValue = false;

    const settle = (outcome: SandboxResult | Error, how: ChildRelease = "spent") => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      stopWatchingMemory();
      signal?.removeEventListener("abort", onAbort);
      lease.cancel();
      if (child) releaseChild(child, how, options.scope);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const fail = (code: SandboxFailureCode, message: string) => settle(failure(code, message));
    const onAbort = () => fail("CODE_ERROR", "cancelled");
    signal?.addEventListener("abort", onAbort, { once: true });
    // Holds the event loop while the call waits for a child (idle children do not).
    timers.push(
      setTimeout(
        () => fail("CODE_ERROR", "The sandbox did not start in time."),
        options.startupTimeoutMs ?? STARTUP_TIMEOUT_MS,
      ),
    );

    const onStarted = (pid: number | undefined) => {
      if (started) return;
      started = true;
      const timeout = `The code ran longer than ${limits.timeoutMs} ms.`;
      timers.push(setTimeout(() => fail("CODE_TIMEOUT", timeout), limits.timeoutMs + KILL_GRACE_MS));
      if (pid === undefined) return;
      const allowedBytes = (limits.memoryMb + RESIDENT_SLACK_MB) * 1024 * 1024;
      // A Python child's calls (those of one scope) share one allowance, counted from what it used
      // at its first call; a JavaScript call gets a fresh QuickJS instance and an allowance of its own.
      const baseline = child?.language === "python" ? child.resident : undefined;
      stopWatchingMemory = watchMemory(pid, allowedBytes, () => fail("CODE_MEMORY", tooMuchMemory), baseline);
    };

    const onLine = (line: string) => {
      if (expectingValue) {
        const parsed = parseResultValue(line);
        settle(
          parsed.ok
            ? { ok: true, value: parsed.value, logs: logs.lines }
            : failure("CODE_RESULT_INVALID", parsed.message),
          "clean",
        );
        return;
      }
      const message = parseMessage(line);
      if (message === null) fail("CODE_ERROR", "The sandbox sent something that is not a sandbox message.");
      else if (message.type === "started") onStarted(child?.pid);
      else if (message.type === "log") logs.add(message.line);
      else if (message.type !== "result")
        fail("CODE_ERROR", "The sandbox sent something that is not a sandbox message.");
      else if (message.ok) expectingValue = true;
      else {
        // A child that stopped its own code at a limit is not given another call: its host heap
        // may be at its largest.
        const how = message.code === "CODE_TIMEOUT" || message.code === "CODE_MEMORY" ? "spent" : "clean";
        settle(failure(message.code, message.message), how);
      }
    };

    const run = (given: SandboxProcess) => {
      child = given;
      given.call(
        request,
        {
          line: onLine,
          overflow: () => fail("CODE_MEMORY", `The result is larger than ${limits.memoryMb} MB.`),
          error: (error) => settle(error),
          // Reached with settled === false only when the child ended without a result.
          exit: (exitCode, exitSignal, stderrTail) => {
            // V8 aborts when its heap is full; the kernel's OOM killer sends SIGKILL (this side
            // kills only after settling).
            if (exitSignal === "SIGABRT" || exitSignal === "SIGKILL" || V8_OUT_OF_MEMORY.test(stderrTail)) {
              fail("CODE_MEMORY", tooMuchMemory);
            } else {
              fail("CODE_ERROR", `The sandbox stopped unexpectedly (${exitSignal ?? `exit code ${exitCode}`}).`);
            }
          },
        },
        // A result may be as large as the code's memory budget, not larger.
        limits.memoryMb * 1024 * 1024,
      );
    };

    lease.outcome.then((outcome) => {
      if (!outcome.ok) {
        // A child that could not start at all (spawn failed) is an error of this server; one
        // that ended while loading is reported like any other sandbox failure.
        if (outcome.error instanceof SandboxStartError) fail("CODE_ERROR", outcome.error.message);
        else settle(outcome.error);
        return;
      }
      if (settled) {
        releaseChild(outcome.child, "unused", options.scope);
        return;
      }
      if (!outcome.child.idle) {
        // It ended between becoming ready and being handed over.
        child = outcome.child;
        fail("CODE_ERROR", "The sandbox stopped unexpectedly.");
        return;
      }
      run(outcome.child);
    });
  });
}
