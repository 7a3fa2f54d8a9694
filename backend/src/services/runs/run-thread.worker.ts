// The run thread (see run-thread.ts): an executor with its own database connection, driven by
// messages from the thread that answers requests.
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { sql } from "kysely";
import type { Config } from "../../core/config.js";
import { createLogger } from "../../core/logging.js";
import { lowerThisThreadPriority } from "../../core/thread-priority.js";
import type { StudioEvent } from "../../engine/runtime/events.js";
import { openDatabase } from "../../repositories/database.js";
import { RunRepository } from "../../repositories/run.repository.js";
import { shareLockReleases } from "../../repositories/sqlite-busy-wait.js";
import { BackgroundMonitor, type BackgroundTask } from "../background-monitor.js";
import { wireRunExecutor, wireWorkflowAccess } from "./run-execution.wiring.js";
import { errorData, type FromRunThread, type ToRunThread } from "./run-thread.messages.js";

if (!parentPort) throw new Error("run-thread.worker runs only as the run thread");
const port: MessagePort = parentPort;
const { config, lockReleases } = workerData as { config: Config; lockReleases: SharedArrayBuffer };
shareLockReleases(lockReleases);
const send = (message: FromRunThread) => port.postMessage(message);

/** Failures are logged and counted by the process's own monitor (health shows them). */
class ForwardedMonitor extends BackgroundMonitor {
  override failed(task: BackgroundTask, message: string, error: unknown, fields: Record<string, unknown> = {}): void {
    send({ type: "failed", task, message, error: errorData(error), fields });
  }
}

// The events written in one stretch of work go over together.
let pending: StudioEvent[] = [];
const sendEvents = () => {
  if (pending.length === 0) return;
  const json = JSON.stringify(pending);
  const runIds = [...new Set(pending.map((event) => event.run_id))];
  pending = [];
  send({ type: "events", runIds, json });
};
const bus = {
  publish(event: StudioEvent) {
    if (pending.length === 0) queueMicrotask(sendEvents);
    pending.push(event);
  },
};

const logger = createLogger(config.logLevel, config.logFormat);
if (config.runThreadNice > 0 && !lowerThisThreadPriority(config.runThreadNice))
  logger.debug("the run thread's CPU priority could not be lowered here (Linux only); it runs at the process's");
const database = openDatabase(config, (error) => logger.warn({ err: error }, "idle database connection lost"), {
  serves: "runs",
});
const executor = wireRunExecutor({
  config,
  logger,
  database,
  runs: new RunRepository(database.forRuns.db, { settled: () => database.settled(), writes: database.forRuns.writes }),
  access: wireWorkflowAccess(config, database.forRuns.db),
  bus,
  monitor: new ForwardedMonitor(logger),
  onEnded: (runId) => send({ type: "ended", runId }),
});

const turnEnded = (runId: string, turn: number, error?: unknown) => {
  // Its events first: a listener sees them before the turn counts as done.
  sendEvents();
  send({ type: "done", runId, turn, ...(error === undefined ? {} : { error: errorData(error) }) });
};

async function close(): Promise<void> {
  executor.stop();
  await executor.close();
  await database.close();
  sendEvents();
  send({ type: "closed" });
  port.close();
}

// The connection answers before the thread takes any turn: a database the thread cannot reach fails
// its start (the turns already sent to it are rejected as such) instead of each turn on its own.
// Turns sent meanwhile wait in the port until the listener below is attached.
await sql`select 1`.execute(database.forRuns.db);

port.on("message", (message: ToRunThread) => {
  switch (message.type) {
    case "execute":
      executor.execute(message.runId).then(
        () => turnEnded(message.runId, message.turn),
        (error: unknown) => turnEnded(message.runId, message.turn, error ?? new Error("the turn failed")),
      );
      return;
    case "abort":
      executor.abort(message.runId);
      return;
    case "stop":
      executor.stop();
      return;
    case "close":
      void close();
      return;
  }
});
send({ type: "ready" });
