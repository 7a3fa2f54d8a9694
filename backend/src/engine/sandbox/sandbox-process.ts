// One sandbox child process as the parent sees it: started, ready (loaded and locked down,
// waiting for a request), running one call at a time, gone. The child runs user code, so
// everything it writes is checked: before it is ready it may only send its snapshot (when asked
// for one) and "ready"; between calls it may send nothing; a child that breaks the protocol is
// killed.

import { type ChildProcess, spawn } from "node:child_process";
import { type ChildCommand, childCommand, type PythonStart, type RuntimeLanguage } from "./child-command.js";
import { ProtocolReader, parseMessage } from "./child-messages.js";
import type { ResidentBaseline } from "./memory-watchdog.js";

// Enough of the child's stderr to recognise a V8 out-of-memory crash; never shown to users.
const STDERR_TAIL_CHARS = 8 * 1024;
// A Pyodide memory snapshot is ~30 MB; anything claiming far more is not one.
const MAX_SNAPSHOT_BYTES = 512 * 1024 * 1024;

/** What the running call hears from its child. */
export interface CallListener {
  line: (line: string) => void;
  overflow: () => void;
  /** The child ended; `stderrTail` is what it wrote on stderr since the call began. */
  exit: (exitCode: number | null, exitSignal: NodeJS.Signals | null, stderrTail: string) => void;
  error: (error: Error) => void;
}

export interface SandboxProcessOptions {
  language: RuntimeLanguage;
  memoryMb: number;
  python?: PythonStart;
  /** With `python.fromSnapshot`: the open snapshot file, handed to the child as SNAPSHOT_FD. */
  snapshotFd?: number;
  /** Receives the snapshot a child started with `makeSnapshot` sends (empty when it has none). */
  onSnapshot?: (bytes: Buffer) => void;
}

export class SandboxProcess {
  readonly language: RuntimeLanguage;
  readonly child: ChildProcess;
  /** Resolves once the child is ready; rejects when it ends or fails first. */
  readonly ready: Promise<void>;
  /** Calls this child has been given. */
  calls = 0;
  /** Its resident memory when its first call was watched (the memory limit counts from there). */
  readonly resident: ResidentBaseline = { bytes: null };
  #listener: CallListener | null = null;
  #isReady = false;
  #exited = false;
  #stderrTail = "";
  #reader: ProtocolReader;
  #exitListeners: (() => void)[] = [];

  constructor(options: SandboxProcessOptions) {
    this.language = options.language;
    const command: ChildCommand = childCommand(options.language, options.memoryMb, options.python);
    this.child = spawn(process.execPath, [...command.flags, command.script, ...command.scriptArgs], {
      env: {},
      stdio: options.snapshotFd === undefined ? ["pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe", options.snapshotFd],
      windowsHide: true,
    });
    let markReady: () => void = () => {};
    let failReady: (error: Error) => void = () => {};
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    // A rejection nobody awaits (the pool stopped this child while it loaded) is not an error.
    this.ready.catch(() => {});

    this.#reader = new ProtocolReader({
      line: (line) => {
        if (this.#listener) {
          this.#listener.line(line);
          return;
        }
        const message = this.#isReady ? null : parseMessage(line);
        if (message?.type === "ready") {
          this.#isReady = true;
          markReady();
        } else if (message?.type === "snapshot" && options.onSnapshot && message.bytes <= MAX_SNAPSHOT_BYTES) {
          const onSnapshot = options.onSnapshot;
          this.#reader.expectBytes(message.bytes, (bytes) => onSnapshot(bytes));
        } else {
          // Nothing else may come outside a call.
          this.kill();
        }
      },
      overflow: () => {
        if (this.#listener) this.#listener.overflow();
        else this.kill();
      },
    });
    this.child.stdout?.on("data", (chunk: Buffer) => this.#reader.push(chunk));
    this.child.stderr?.setEncoding("utf8");
    this.child.stderr?.on("data", (chunk: string) => {
      this.#stderrTail = (this.#stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    // The child may die before reading what it was sent (EPIPE); "close" reports that.
    this.child.stdin?.on("error", () => {});
    this.child.on("error", (error) => {
      failReady(error);
      this.#listener?.error(error);
    });
    this.child.on("close", (exitCode, exitSignal) => {
      this.#exited = true;
      failReady(new SandboxStartError(`The sandbox stopped unexpectedly (${exitSignal ?? `exit code ${exitCode}`}).`));
      const listener = this.#listener;
      this.#listener = null;
      listener?.exit(exitCode, exitSignal, this.#stderrTail);
      for (const notify of this.#exitListeners.splice(0)) notify();
    });
    this.hold(false);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Ready, alive and not running a call. */
  get idle(): boolean {
    return this.#isReady && this.#listener === null && this.alive;
  }

  get alive(): boolean {
    return !this.#exited && this.child.exitCode === null && this.child.signalCode === null && !this.child.killed;
  }

  /** Calls `notify` once the child has ended (at once if it has). */
  onExit(notify: () => void): void {
    if (this.#exited) notify();
    else this.#exitListeners.push(notify);
  }

  /** Sends one request; what the child answers goes to `listener` until `endCall`. */
  call(requestJson: string, listener: CallListener, maxBytes: number): void {
    if (!this.idle) throw new Error("The sandbox child is not idle");
    this.calls += 1;
    this.#listener = listener;
    this.#stderrTail = "";
    this.#reader.setBudget(maxBytes);
    this.hold(true);
    this.child.stdin?.write(`${requestJson}\n`);
  }

  /** The call is over for the parent: the child is idle again (or about to be killed). */
  endCall(): void {
    this.#listener = null;
    this.#reader.setBudget(0);
    this.hold(false);
  }

  kill(): void {
    if (!this.#exited) this.child.kill("SIGKILL");
  }

  /** An idle child must not keep the event loop (a CLI run, a test worker) alive; a busy one must. */
  hold(held: boolean): void {
    for (const handle of [this.child, this.child.stdin, this.child.stdout, this.child.stderr]) {
      const refable = handle as unknown as { ref?: () => void; unref?: () => void } | null;
      if (held) refable?.ref?.();
      else refable?.unref?.();
    }
  }
}

/** A child ended or failed before it was ready. */
export class SandboxStartError extends Error {}
