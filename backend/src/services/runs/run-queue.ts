// What the run service queues runs on: in this process (EmbeddedQueue, one process), or BullMQ on
// Redis (RedisRunQueue, any number of API and worker processes). Either way the queue only says
// which run to try next: the lease in the database (runs.lease_gen) decides who really runs it,
// so a run handed out twice runs once.
export type JobHandler = (runId: string) => Promise<void>;
/** Told of a job that failed (threw): the queue itself never drops an error. */
export type JobFailureHandler = (runId: string, error: unknown) => void;

export interface RunQueue {
  readonly kind: "memory" | "redis";
  /** Starts executing queued runs here with `handler`; a process that only queues never calls it. */
  start(handler: JobHandler): void;
  /**
   * Queues the next turn of a run. `turn` names that turn (the run's lease_gen when it is queued),
   * so that queuing the same turn twice keeps one job while a run queued again after a turn (a
   * Human answer, a continue) gets a job of its own. Resolves once the job is queued (on Redis:
   * stored there); rejects when it could not be, and the run then waits, queued in the database,
   * for the sweeper or the next start to queue it again.
   */
  enqueue(runId: string, ownerId: string, turn: number): Promise<void>;
  /** How many runs this process has waiting (not handed on yet) and executing, for one user or all. */
  size(ownerId?: string): { pending: number; active: number };
  /** Resolves when this process has nothing queued or executing (tests and shutdown). */
  idle(): Promise<void>;
  /** Stops taking work; what is executing finishes. */
  stop(): void;
  /** Releases the queue's connections (after stop). */
  close(): Promise<void>;
}
