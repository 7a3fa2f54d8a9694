// How many runs one user may start per minute: a sliding window of the last minute's starts per
// user, so no 60-second span ever holds more than the limit. The clock is injectable for tests.
import { AppError } from "../../core/errors.js";

const WINDOW_MS = 60_000;
// Users whose window has emptied are forgotten every this many calls.
const PRUNE_EVERY = 256;

export class TriggerRateLimiter {
  readonly #perMinute: number;
  readonly #now: () => number;
  readonly #starts = new Map<string, number[]>();
  #calls = 0;

  constructor(perMinute: number, now: () => number = Date.now) {
    this.#perMinute = perMinute;
    this.#now = now;
  }

  /**
   * Counts one start for `key`, or throws RATE_LIMITED with the seconds until the oldest start
   * leaves the window. Returns an undo for a start that did not happen after all.
   */
  take(key: string): () => void {
    const now = this.#now();
    if (++this.#calls % PRUNE_EVERY === 0) this.#prune(now);
    const starts = this.#recent(key, now);
    if (starts.length >= this.#perMinute) {
      const waitMs = (starts[0] as number) + WINDOW_MS - now;
      throw new AppError("RATE_LIMITED", {
        retry_after_seconds: Math.max(1, Math.ceil(waitMs / 1000)),
        limit_per_minute: this.#perMinute,
      });
    }
    starts.push(now);
    this.#starts.set(key, starts);
    return () => {
      const index = starts.lastIndexOf(now);
      if (index >= 0) starts.splice(index, 1);
    };
  }

  /** Users with starts in the current window (tests). */
  tracked(): number {
    this.#prune(this.#now());
    return this.#starts.size;
  }

  #recent(key: string, now: number): number[] {
    const starts = this.#starts.get(key) ?? [];
    let expired = 0;
    while (expired < starts.length && (starts[expired] as number) <= now - WINDOW_MS) expired++;
    if (expired > 0) starts.splice(0, expired);
    return starts;
  }

  #prune(now: number): void {
    for (const key of [...this.#starts.keys()]) {
      if (this.#recent(key, now).length === 0) this.#starts.delete(key);
    }
  }
}
