// Whether one user may start another run: under STUDIO_USER_MAX_QUEUED queued and running runs,
// and under STUDIO_USER_RUN_RATE starts a minute. One user's admissions take turns from the count
// until the run is committed, so concurrent triggers cannot all slip under the limit together.
import { AppError } from "../../core/errors.js";
import type { RunRow } from "../../models/database.model.js";
import type { RunRepository } from "../../repositories/run.repository.js";
import type { TriggerRateLimiter } from "./trigger-rate.js";

// What a refused caller is told to wait: runs end at their own pace, so this is a polling hint.
const RUN_LIMIT_RETRY_SECONDS = 10;
// Runs started by the command line in its own process: a person at the machine, not a trigger.
const UNLIMITED_TRIGGERS = new Set(["cli"]);
const noop = () => {};

export class RunAdmission {
  readonly #runs: RunRepository;
  readonly #maxQueued: number;
  readonly #rate: TriggerRateLimiter;
  readonly #turns = new Map<string, Promise<unknown>>();

  constructor(deps: { runs: RunRepository; maxQueued: number; rate: TriggerRateLimiter }) {
    this.#runs = deps.runs;
    this.#maxQueued = deps.maxQueued;
    this.#rate = deps.rate;
  }

  /**
   * Creates a run through `create` if the owner is under both limits; RUN_LIMIT_REACHED or
   * RATE_LIMITED otherwise. A create that returns an earlier run (same idempotency key) or fails
   * does not count against the rate. `create` calls `visible` once every later count sees its
   * run (committed); until then, or until it ends, this owner's next admission waits.
   */
  async admit(
    ownerId: string,
    trigger: string,
    create: (visible: () => void) => Promise<{ run: RunRow; created: boolean }>,
  ): Promise<{ run: RunRow; created: boolean }> {
    if (UNLIMITED_TRIGGERS.has(trigger)) return create(() => {});
    // One owner's admissions take turns from the count until the run is committed (`visible`:
    // every later count sees it), so each count sees every run admitted before it exactly once.
    // The wait for the disk that follows the commit is outside the turn: admissions of one owner
    // do not queue behind each other's syncs.
    let created: Promise<{ run: RunRow; created: boolean }> | undefined;
    await this.#oneAtATime(ownerId, async () => {
      const active = await this.#runs.countActive(ownerId);
      if (active >= this.#maxQueued) {
        throw new AppError("RUN_LIMIT_REACHED", {
          limit: this.#maxQueued,
          retry_after_seconds: RUN_LIMIT_RETRY_SECONDS,
        });
      }
      const undo = this.#rate.take(ownerId);
      let toldVisible!: () => void;
      const visible = new Promise<void>((resolve) => {
        toldVisible = resolve;
      });
      const creating = (async () => {
        try {
          const result = await create(toldVisible);
          if (!result.created) undo();
          return result;
        } catch (error) {
          undo();
          throw error;
        }
      })();
      created = creating;
      // The turn ends once the run is visible, or the create has ended (failed, or found an earlier run).
      await Promise.race([visible, creating.then(noop, noop)]);
    });
    return created as Promise<{ run: RunRow; created: boolean }>;
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
