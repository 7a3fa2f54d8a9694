// Run work gives the event loop back once it has used a turn's budget. Runs continue from promise
// callbacks, and one resolved batch of writes can wake dozens of runs whose next steps would all
// run back to back in one turn, while a request that arrived meanwhile (a trigger waiting for its
// 202, a click in the editor) waits unread for the turn to end. Work that calls `pace()` before a
// step waits for the next turn once the current one has run for `budgetMs`, so I/O is polled
// between slices and no turn grows much past the budget plus one step.

/** Milliseconds of run work in one turn of the event loop before it is given back. */
export const TURN_BUDGET_MS = 4;

// Taken at load: a test that fakes timers must not stall the runs it drives.
const realSetImmediate = setImmediate;

export class TurnPace {
  readonly #budgetMs: number;
  readonly #now: () => number;
  readonly #nextTurn: (callback: () => void) => void;
  /** When the current turn's first paced step began; null until one has in this turn. */
  #turnStarted: number | null = null;
  /** Steps sent to wait for a later turn (tests and benchmarks count them). */
  deferred = 0;

  constructor(options: { budgetMs?: number; now?: () => number; nextTurn?: (callback: () => void) => void } = {}) {
    this.#budgetMs = options.budgetMs ?? TURN_BUDGET_MS;
    this.#now = options.now ?? (() => performance.now());
    this.#nextTurn = options.nextTurn ?? ((callback) => realSetImmediate(callback));
  }

  /** Null when the step may go on in this turn; otherwise a promise that resolves in a later one. */
  pace(): Promise<void> | null {
    const now = this.#now();
    if (this.#turnStarted === null) {
      this.#turnStarted = now;
      // Queued before any step deferred below: runs first in the next turn and opens a new budget.
      this.#nextTurn(() => {
        this.#turnStarted = null;
      });
      return null;
    }
    if (now - this.#turnStarted < this.#budgetMs) return null;
    this.deferred++;
    return new Promise<void>((resolve) => this.#nextTurn(resolve)).then(() => this.pace() ?? undefined);
  }
}

/** The process's pace, shared by every run it executes. */
export const turnPace = new TurnPace();
