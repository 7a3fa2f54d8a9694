// Starts sandbox children. A Python child spends ~1.4 s loading Pyodide, so once a Python call
// ends, one spare Python child is started ahead: it loads, locks itself down and waits for a
// request on stdin. A spare serves exactly one call, like any child, and no interpreter ever runs
// two calls. A spare left idle is stopped, and it never keeps this process alive.

import { type ChildProcess, spawn } from "node:child_process";
import { childCommand, type RuntimeLanguage } from "./child-command.js";

const SPARE_IDLE_MS = 120_000;

interface Spare {
  child: ChildProcess;
  key: string;
  idle: NodeJS.Timeout;
}

let spare: Spare | null = null;

/** A child for one call: the waiting spare when it was started for the same settings, else a new one. */
export function startChild(language: RuntimeLanguage, memoryMb: number): ChildProcess {
  const waiting = spare;
  spare = null;
  if (waiting) {
    clearTimeout(waiting.idle);
    if (waiting.key === spareKey(language, memoryMb) && isAlive(waiting.child)) {
      hold(waiting.child, true);
      return waiting.child;
    }
    waiting.child.kill("SIGKILL");
  }
  return spawnChild(language, memoryMb);
}

/** Has a spare ready for the next call of this language (Python only: QuickJS starts in ~60 ms). */
export function prepareSpare(language: RuntimeLanguage, memoryMb: number): void {
  if (language !== "python" || spare !== null) return;
  const child = spawnChild(language, memoryMb);
  hold(child, false);
  const entry: Spare = {
    child,
    key: spareKey(language, memoryMb),
    idle: setTimeout(() => {
      drop();
      child.kill("SIGKILL");
    }, SPARE_IDLE_MS),
  };
  entry.idle.unref();
  const drop = () => {
    if (spare !== entry) return;
    clearTimeout(entry.idle);
    spare = null;
  };
  child.on("exit", drop);
  // A spare that cannot start is dropped; the next call starts its own child and reports why.
  child.on("error", drop);
  spare = entry;
}

/** Stops the waiting spare, if any (a test file that ran Python code, or a shutdown). */
export function stopSpare(): void {
  const waiting = spare;
  spare = null;
  if (!waiting) return;
  clearTimeout(waiting.idle);
  waiting.child.kill("SIGKILL");
}

function spawnChild(language: RuntimeLanguage, memoryMb: number): ChildProcess {
  const command = childCommand(language, memoryMb);
  return spawn(process.execPath, [...command.flags, command.script, ...command.scriptArgs], {
    env: {},
    stdio: ["pipe", "pipe", "pipe"],
    windowsHide: true,
  });
}

function spareKey(language: RuntimeLanguage, memoryMb: number): string {
  return `${language}:${memoryMb}`;
}

function isAlive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null && !child.killed;
}

/** An idle spare must not keep the event loop (a CLI run, a test worker) alive; a busy child must. */
function hold(child: ChildProcess, held: boolean): void {
  for (const handle of [child, child.stdin, child.stdout, child.stderr]) {
    const refable = handle as unknown as { ref?: () => void; unref?: () => void } | null;
    if (held) refable?.ref?.();
    else refable?.unref?.();
  }
}
