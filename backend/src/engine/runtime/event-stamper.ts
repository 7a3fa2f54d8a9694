// A run's events as the studio records them: numbered (seq, per run, from where the last turn
// stopped), dated, their data scrubbed of the run's secrets, and handed to the run's listener
// before the stream yields them. Shared by workflow runs and imported runs.
import type { NodeEvent, StudioEvent } from "./events.js";
import type { RunOptions } from "./run-options.js";
import type { SecretRedactor } from "./secret-redactor.js";

export class EventStamper {
  readonly #runId: string;
  readonly #redactor: SecretRedactor;
  readonly #onEvent: RunOptions["onEvent"];
  /** The seq the next event gets (the turn's `nextSeq` when it ends). */
  seq: number;
  /** The highest superstep an event has named. */
  supersteps = 0;

  constructor(runId: string, redactor: SecretRedactor, options: Pick<RunOptions, "firstSeq" | "onEvent">) {
    this.#runId = runId;
    this.#redactor = redactor;
    this.#onEvent = options.onEvent;
    this.seq = options.firstSeq ?? 1;
  }

  async stamp(event: NodeEvent): Promise<StudioEvent> {
    const full: StudioEvent = {
      run_id: this.#runId,
      seq: this.seq++,
      ts: new Date().toISOString(),
      ...event,
      data: this.#redactor.value(event.data),
    };
    if (typeof event.superstep === "number") this.supersteps = Math.max(this.supersteps, event.superstep);
    await this.#onEvent?.(full);
    return full;
  }
}
