// A job's log as its steps write it: lines are appended as they come (pip's, the runner's) but
// written to job.json in batches, one write at a time, so a chatty step costs a few file writes,
// not one per line. The log keeps MAX_LOG_LINES; past that its last line counts what was dropped.
import { type ImportStepName, MAX_LOG_LINES } from "../../models/import-job.model.js";
import type { ImportJobRepository } from "../../repositories/import-job.repository.js";

export class JobLog {
  readonly #jobs: ImportJobRepository;
  readonly #id: string;
  #pending: { ts: string; step: ImportStepName; line: string }[] = [];
  #writing: Promise<void> | null = null;
  #dropped = 0;

  constructor(jobs: ImportJobRepository, id: string) {
    this.#jobs = jobs;
    this.#id = id;
  }

  add(step: ImportStepName, line: string): void {
    this.#pending.push({ ts: new Date().toISOString(), step, line });
    this.#writing ??= this.#drain();
  }

  /** Resolves once every line added so far is in job.json. */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#pending.length > 0) {
        const batch = this.#pending.splice(0);
        await this.#jobs.update(this.#id, (job) => {
          for (const entry of batch) {
            if (job.logs.length < MAX_LOG_LINES) {
              job.logs.push(entry);
              continue;
            }
            this.#dropped += 1;
            job.logs[MAX_LOG_LINES - 1] = {
              ts: entry.ts,
              step: entry.step,
              line: `… ${this.#dropped + 1} more log lines not kept (a job keeps ${MAX_LOG_LINES})`,
            };
          }
          return job;
        });
      }
    } finally {
      this.#writing = null;
    }
  }
}
