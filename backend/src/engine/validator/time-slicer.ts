// Validation is CPU work on the server's only JavaScript thread. A time slicer lets a long
// validation give the event loop back every few milliseconds, so one large document never stalls
// other requests (health checks included). Loops whose length depends on the input call `due()`
// (cheap) and `pause()` when it says so.
import { channel } from "node:diagnostics_channel";
import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * Published each time a validation pauses. In-process subscribers (tests, diagnostics) see that a
 * validation is in progress; `hold(promise)` keeps it paused until the promise settles, which lets
 * a test order "request issued during validation" deterministically.
 */
export const VALIDATION_PAUSE_CHANNEL = "superstep:validation:pause";
const pauseChannel = channel(VALIDATION_PAUSE_CHANNEL);

export interface ValidationPause {
  hold(until: Promise<unknown>): void;
}

/** How long a validation may keep the event loop before it yields. */
export const SLICE_MS = 4;

export class TimeSlicer {
  readonly #sliceMs: number;
  #sliceStart = performance.now();
  #pauses = 0;

  constructor(sliceMs = SLICE_MS) {
    this.#sliceMs = sliceMs;
  }

  /** How many times this slicer yielded. */
  get pauses(): number {
    return this.#pauses;
  }

  /** Whether the current slice is used up. */
  due(): boolean {
    return performance.now() - this.#sliceStart >= this.#sliceMs;
  }

  /** Yields when the current slice is used up. */
  async tick(): Promise<void> {
    if (this.due()) await this.pause();
  }

  /** Yields to the event loop (one turn, so pending I/O is served), then starts a new slice. */
  async pause(): Promise<void> {
    this.#pauses++;
    const held: Promise<unknown>[] = [];
    if (pauseChannel.hasSubscribers) {
      const message: ValidationPause = { hold: (until) => held.push(until) };
      pauseChannel.publish(message);
    }
    await nextTurn();
    if (held.length > 0) await Promise.allSettled(held);
    this.#sliceStart = performance.now();
  }
}
