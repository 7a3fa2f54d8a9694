// Several run threads (STUDIO_RUN_THREADS): each queued run's turn goes to the thread executing
// the fewest turns. On a machine with more than one core this lets run work use them all, while
// the thread that answers requests stays free (decision 0017).
import type { RunThread } from "./run-thread.js";
import type { RunWorker } from "./run-worker.js";

export class RunThreadPool implements RunWorker {
  readonly #threads: RunThread[];
  /** Which thread executes each run's current turn. */
  readonly #byRun = new Map<string, RunThread>();

  constructor(threads: RunThread[]) {
    if (threads.length === 0) throw new Error("a run thread pool needs at least one thread");
    this.#threads = threads;
  }

  /** The threads (tests). */
  get threads(): readonly RunThread[] {
    return this.#threads;
  }

  async execute(runId: string): Promise<void> {
    let chosen = this.#threads[0] as RunThread;
    for (const thread of this.#threads) if (thread.executing() < chosen.executing()) chosen = thread;
    this.#byRun.set(runId, chosen);
    try {
      await chosen.execute(runId);
    } finally {
      this.#byRun.delete(runId);
    }
  }

  abort(runId: string): boolean {
    return this.#byRun.get(runId)?.abort(runId) ?? false;
  }

  executing(): number {
    return this.#threads.reduce((sum, thread) => sum + thread.executing(), 0);
  }

  stop(): void {
    for (const thread of this.#threads) thread.stop();
  }

  async close(): Promise<void> {
    await Promise.all(this.#threads.map((thread) => thread.close()));
  }
}
