// Executes queued runs on a thread of their own (one of STUDIO_RUN_THREADS): the engine, its
// checkpoints and events, and the garbage collections of the heap that runs allocate, stay off the
// thread that answers requests, so accepting a trigger or serving the editor never waits behind
// run work. The thread has its own database connection (SQLite allows one writer at a time; each
// connection waits for the other's short transactions without blocking its event loop) and sends
// back, as messages, the events it has written, the end of each turn and its background failures.
//
// A thread that dies (it should not; a bug could make it) ends the turns it was executing without
// an ending: their runs keep their leases until these expire, and the sweeper queues them again to
// go on from their last checkpoint, exactly as after a crash of the whole process. The next run
// starts a new thread. A thread that cannot start (its modules fail to load, its database cannot be
// opened or reached) rejects the turns handed to it with an error saying so, and counts as a
// background failure; the runs stay queued for the next attempt.
import { Worker } from "node:worker_threads";
import type { Config } from "../../core/config.js";
import { lockReleases } from "../../repositories/sqlite-busy-wait.js";
import type { BackgroundMonitor } from "../background-monitor.js";
import type { RunBus } from "./run-bus.js";
import { type FromRunThread, revivedError, type ToRunThread } from "./run-thread.messages.js";
import type { RunWorker } from "./run-worker.js";

// How long a closing thread may take to finish its turns' endings and release its connection;
// after that it is terminated.
const CLOSE_TIMEOUT_MS = 10_000;

// The thread's first module. From the TypeScript sources (tests), Node strips the types itself, but
// the sources import each other by the .js names the build writes: those are mapped back to .ts.
const BOOTSTRAP = `
const { workerData } = require("node:worker_threads");
if (workerData.entry.endsWith(".ts")) {
  const { registerHooks } = require("node:module");
  const { existsSync } = require("node:fs");
  const { fileURLToPath } = require("node:url");
  registerHooks({
    resolve(specifier, context, next) {
      if (context.parentURL?.endsWith(".ts") && specifier.startsWith(".") && specifier.endsWith(".js")) {
        const source = new URL(specifier.slice(0, -3) + ".ts", context.parentURL);
        if (existsSync(fileURLToPath(source))) return next(source.href, context);
      }
      return next(specifier, context);
    },
  });
}
import(workerData.entry);
`;

const WORKER_ENTRY = new URL(
  import.meta.url.endsWith(".ts") ? "./run-thread.worker.ts" : "./run-thread.worker.js",
  import.meta.url,
).href;

interface Job {
  runId: string;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class RunThread implements RunWorker {
  readonly #config: Config;
  readonly #bus: RunBus;
  readonly #monitor: BackgroundMonitor;
  readonly #onEnded: (runId: string) => void;
  readonly #entry: string;
  readonly #closeTimeoutMs: number;
  #worker: Worker | null = null;
  /**
   * Turns handed to the thread, by hand-over id. A run can be handed over twice at once (the Redis
   * queue delivers a job again: a stalled job and the sweeper's; the run's lease lets one of them
   * run), so each hand-over is answered on its own.
   */
  readonly #jobs = new Map<number, Job>();
  #nextTurn = 1;
  #closed = false;

  constructor(deps: {
    config: Config;
    bus: RunBus;
    monitor: BackgroundMonitor;
    /** Called when a run with a callback URL reaches a final status. */
    onEnded(runId: string): void;
    /** The thread's module (tests start threads that fail or never stop). */
    entry?: string;
    closeTimeoutMs?: number;
  }) {
    this.#entry = deps.entry ?? WORKER_ENTRY;
    this.#closeTimeoutMs = deps.closeTimeoutMs ?? CLOSE_TIMEOUT_MS;
    this.#config = deps.config;
    this.#bus = deps.bus;
    this.#monitor = deps.monitor;
    this.#onEnded = deps.onEnded;
  }

  execute(runId: string): Promise<void> {
    // Closed: the run stays queued in the database; the next start takes it.
    if (this.#closed) return Promise.resolve();
    const worker = this.#ensureWorker();
    const turn = this.#nextTurn++;
    return new Promise<void>((resolve, reject) => {
      this.#jobs.set(turn, { runId, resolve, reject });
      // Kept alive while it has turns to finish, never otherwise.
      worker.ref();
      this.#send(worker, { type: "execute", runId, turn });
    });
  }

  abort(runId: string): boolean {
    const worker = this.#worker;
    if (!worker || !this.#runIds().has(runId)) return false;
    this.#send(worker, { type: "abort", runId });
    return true;
  }

  /** Runs the thread is executing (a run handed over twice at once counts once). */
  executing(): number {
    return this.#runIds().size;
  }

  #runIds(): Set<string> {
    return new Set([...this.#jobs.values()].map((job) => job.runId));
  }

  /** The run thread's id while it is alive (tests, logs). */
  threadId(): number | null {
    return this.#worker?.threadId ?? null;
  }

  stop(): void {
    if (this.#worker) this.#send(this.#worker, { type: "stop" });
  }

  /** Lets the thread release its connection and sandbox children, then ends it. */
  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    this.#send(worker, { type: "close" });
    const timer = setTimeout(() => {
      this.#monitor.failed(
        "run",
        `the run thread did not stop within ${this.#closeTimeoutMs} ms of being asked to close; terminated`,
        new Error("run thread close timed out"),
      );
      void worker.terminate();
    }, this.#closeTimeoutMs);
    await exited;
    clearTimeout(timer);
  }

  /** Ends the thread at once, as a crash of the thread would (tests). */
  async terminate(): Promise<void> {
    await this.#worker?.terminate();
  }

  #send(worker: Worker, message: ToRunThread): void {
    worker.postMessage(message);
  }

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      name: "superstep runs",
      // The SQLite connections of the process tell each other when they let go of the write lock.
      workerData: { entry: this.#entry, config: this.#config, lockReleases: lockReleases() },
    });
    /** Whether its executor and database are set up; and why it failed before they were. */
    let ready = false;
    let startError: unknown = null;
    worker.on("message", (message: FromRunThread) => {
      if (message.type === "ready") ready = true;
      else this.#receive(worker, message);
    });
    worker.on("error", (error) => {
      // Before it is ready, the exit that follows reports the failure once, with the turns it ends.
      if (ready) this.#monitor.failed("run", "the run thread failed", error);
      else startError = error;
    });
    worker.on("exit", (code) => {
      if (this.#worker === worker) this.#worker = null;
      const lost = [...this.#jobs.values()];
      this.#jobs.clear();
      // A thread terminated while closing is reported by close() (if at all), not as a start failure.
      if (!ready && !this.#closed) {
        const reason = startError instanceof Error ? startError.message : `exit code ${code}`;
        const error = new Error(
          `the run thread could not start (${reason}); the run stays queued and is tried again on a new thread`,
          { cause: startError ?? undefined },
        );
        error.name = "RunThreadStartError";
        this.#monitor.failed("run", "the run thread could not start", startError ?? error);
        for (const job of lost) job.reject(error);
        return;
      }
      const error = new Error(
        `the run thread ended (exit code ${code}) during a turn; the run goes on from its last checkpoint once its lease expires`,
      );
      for (const job of lost) job.reject(error);
    });
    this.#worker = worker;
    return worker;
  }

  #receive(worker: Worker, message: FromRunThread): void {
    switch (message.type) {
      case "events":
        // Nobody follows these runs: a follower that subscribes later reads them from the database.
        if (!message.runIds.some((runId) => this.#bus.has(runId))) return;
        for (const event of JSON.parse(message.json) as Parameters<RunBus["publish"]>[0][]) this.#bus.publish(event);
        return;
      case "done": {
        const job = this.#jobs.get(message.turn);
        this.#jobs.delete(message.turn);
        if (this.#jobs.size === 0) worker.unref();
        if (message.error) job?.reject(revivedError(message.error));
        else job?.resolve();
        return;
      }
      case "ended":
        this.#onEnded(message.runId);
        return;
      case "failed":
        this.#monitor.failed(message.task, message.message, revivedError(message.error), message.fields);
        return;
      case "ready":
      case "closed":
        return;
    }
  }
}
