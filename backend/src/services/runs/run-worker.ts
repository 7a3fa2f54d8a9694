// What executes queued runs for the queue and the run service: the executor on this thread, or
// the run thread that hosts one (run-thread.ts).
export interface RunWorker {
  /** Executes one turn of a queued run; resolves when the turn has ended (or was not ours to run). */
  execute(runId: string): Promise<void>;
  /** Stops a run executing here (cancel, timeout); true when it was. */
  abort(runId: string): boolean;
  /** How many runs are executing now. */
  executing(): number;
  /** Shutdown: endings still waiting for the database give up (the lease expires; the run is taken over). */
  stop(): void;
  /** Releases what execution holds (the thread, its database connection, sandbox children). */
  close(): Promise<void>;
}
