// Whether one user may start another run: under STUDIO_USER_MAX_QUEUED queued and running runs,
// and under STUDIO_USER_RUN_RATE starts a minute. One user's admissions are counted one at a time,
// with the runs still being created counted too, so concurrent triggers cannot all slip under the
// limit together.
import { AppError } from "../../core/errors.js";
import type { RunRow } from "../../models/database.model.js";
import type { RunRepository } from "../../repositories/run.repository.js";
import type { TriggerRateLimiter } from "./trigger-rate.js";

// What a refused caller is told to wait: runs end at their own pace, so this is a polling hint.
const RUN_LIMIT_RETRY_SECONDS = 10;
// Runs started by the command line in its own process: a person at the machine, not a trigger.
const UNLIMITED_TRIGGERS = new Set(["cli"]);

export class RunAdmission {
  readonly #runs: RunRepository;
  readonly #maxQueued: number;
  readonly #rate: TriggerRateLimiter;
  readonly #turns = new Map<string, Promise<unknown>>();
  /** Per owner: runs admitted whose create has not returned yet. */
  readonly #creating = new Map<string, number>();

  constructor(deps: { runs: RunRepository; maxQueued: number; rate: TriggerRateLimiter }) {
    this.#runs = deps.runs;
    this.#maxQueued = deps.maxQueued;
    this.#rate = deps.rate;
  }

  /**
   * Creates a run through `create` if the owner is under both limits; RUN_LIMIT_REACHED or
   * RATE_LIMITED otherwise. A create that returns an earlier run (same idempotency key) or fails
   * does not count against the rate.
   */
  async admit(
    ownerId: string,
    trigger: string,
    create: () => Promise<{ run: RunRow; created: boolean }>,
  ): Promise<{ run: RunRow; created: boolean }> {
    if (UNLIMITED_TRIGGERS.has(trigger)) return create();
    // Only the count is taken one at a time; the create (which waits for the disk) runs outside,
    // counted meanwhile in #creating so that the next admission's count includes it. Once created,
    // the run is in the database's count too and is counted twice until the create returns: a
    // trigger at the very edge may be refused, never one too many admitted.
    const undo = await this.#oneAtATime(ownerId, async () => {
      const creating = this.#creating.get(ownerId) ?? 0;
      const active = (await this.#runs.countActive(ownerId)) + creating;
      if (active >= this.#maxQueued) {
        throw new AppError("RUN_LIMIT_REACHED", {
          limit: this.#maxQueued,
          retry_after_seconds: RUN_LIMIT_RETRY_SECONDS,
        });
      }
      const undoRate = this.#rate.take(ownerId);
      this.#creating.set(ownerId, creating + 1);
      return undoRate;
    });
    try {
      const result = await create();
      if (!result.created) undo();
      return result;
    } catch (error) {
      undo();
      throw error;
    } finally {
      const left = (this.#creating.get(ownerId) ?? 1) - 1;
      if (left > 0) this.#creating.set(ownerId, left);
      else this.#creating.delete(ownerId);
    }
  }

  async #oneAtATime<T>(ownerId: string, work: () => Promise<T>): Promise<T> {
    const before = this.#turns.get(ownerId) ?? Promise.resolve();
    const turn = before.catch(() => {}).then(work);
    const settled = turn.catch(() => {});
    this.#turns.set(ownerId, settled);
    try {
      return await turn;
    } finally {
      if (this.#turns.get(ownerId) === settled) this.#turns.delete(ownerId);
    }
  }
}
