// Copies the WAL back into the database file from a worker thread. SQLite does this itself
// (auto-checkpoint) inside the COMMIT that crosses the threshold, on the committing thread: two
// fsyncs (WAL, then database file) and the page copies, during which the event loop of a studio
// stands still. Here a worker thread with its own connection runs a PASSIVE checkpoint every few
// dozen commits: it never blocks a writer or a reader, and the main
// connection's own auto-checkpoint (kept as the safety net, at a higher threshold) then finds the
// pages copied and synced already, so it is short.
import { Worker } from "node:worker_threads";

// Commits between two background checkpoints (each copies whatever frames are new; a commit
// writes a few frames, so this stays well under SQLite's own threshold of 1,000).
const COMMITS_PER_CHECKPOINT = 64;
// The main connection's auto-checkpoint threshold (frames): only when the worker falls far behind.
export const FOREGROUND_CHECKPOINT_FRAMES = 8000;
// Commits before the worker starts (a process that writes little never starts it).
const START_AFTER_COMMITS = 256;

// Runs in the worker (CommonJS, evaluated): a PASSIVE checkpoint each time it is told to.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { DatabaseSync } = require("node:sqlite");
const db = new DatabaseSync(workerData.path);
db.exec("PRAGMA busy_timeout = 0");
const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
parentPort.on("message", (message) => {
  if (message === "close") {
    db.close();
    parentPort.close();
    return;
  }
  try {
    checkpoint.get();
  } catch {
    // Busy (another checkpoint is running) or failed: the next request, or SQLite's own
    // auto-checkpoint, tries again.
  }
  parentPort.postMessage("done");
});
`;

export class WalCheckpointer {
  readonly #path: string;
  #worker: Worker | null = null;
  #commits = 0;
  #running = false;
  #again = false;
  #closed = false;

  constructor(databasePath: string) {
    this.#path = databasePath;
  }

  /** Told of each commit. */
  committed(): void {
    if (this.#closed) return;
    this.#commits++;
    if (this.#commits < START_AFTER_COMMITS || this.#commits % COMMITS_PER_CHECKPOINT !== 0) return;
    this.#request();
  }

  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = null;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.postMessage("close");
    await exited;
  }

  #request(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    const worker = this.#ensureWorker();
    worker.postMessage("checkpoint");
  }

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path: this.#path } });
    // Never what keeps a process alive.
    worker.unref();
    worker.on("message", () => {
      this.#running = false;
      if (this.#again && !this.#closed) {
        this.#again = false;
        this.#request();
      }
    });
    worker.on("error", () => {
      // The worker died: SQLite's own auto-checkpoint still runs; a later request starts another.
      if (this.#worker === worker) this.#worker = null;
      this.#running = false;
    });
    this.#worker = worker;
    return worker;
  }
}
