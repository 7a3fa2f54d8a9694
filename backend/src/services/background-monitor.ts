// Work nobody waits for (the run queue, the run bus, the sweeper, schedules, callback deliveries) must not fail
// silently: every failure is logged with what it concerned and counted here, and /api/health
// shows the count and the last one.
import type { Logger } from "../core/logging.js";

export type BackgroundTask = "run" | "queue" | "bus" | "sweeper" | "schedules" | "callbacks";

export interface BackgroundView {
  failures: number;
  last_failure_at: string | null;
  last_failure_task: BackgroundTask | null;
  last_sweep_at: string | null;
}

export class BackgroundMonitor {
  readonly #logger: Logger;
  #failures = 0;
  #lastFailureAt: string | null = null;
  #lastFailureTask: BackgroundTask | null = null;
  #lastSweepAt: string | null = null;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Logs a background failure (with the run it concerned, if any) and counts it. */
  failed(task: BackgroundTask, message: string, error: unknown, fields: Record<string, unknown> = {}): void {
    this.#failures++;
    this.#lastFailureAt = new Date().toISOString();
    this.#lastFailureTask = task;
    this.#logger.error({ err: error, task, ...fields }, message);
  }

  swept(at: Date): void {
    this.#lastSweepAt = at.toISOString();
  }

  view(): BackgroundView {
    return {
      failures: this.#failures,
      last_failure_at: this.#lastFailureAt,
      last_failure_task: this.#lastFailureTask,
      last_sweep_at: this.#lastSweepAt,
    };
  }
}
