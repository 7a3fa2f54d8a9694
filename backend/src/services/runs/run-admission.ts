// Whether one user may start another run: under STUDIO_USER_MAX_QUEUED queued and running runs,
// and under STUDIO_USER_RUN_RATE starts a minute. One user's admissions take turns from the count
// until the run is committed, so concurrent triggers cannot all slip under the limit together. And
// whether the server may take another run at all: under STUDIO_MAX_QUEUED runs queued and running
// in this process, all users together, counting admissions under way, so a burst from many users
// cannot slip past it either.
import { AppError } from "../../core/errors.js";
import type { RunRow } from "../../models/database.model.js";
import type { RunRepository } from "../../repositories/run.repository.js";
import type { TriggerRateLimiter } from "./trigger-rate.js";

// What a refused caller is told to wait: runs end at their own pace, so this is a polling hint.
const RUN_LIMIT_RETRY_SECONDS = 10;

/** The server-wide bound: how many runs this process holds (queued and running) and how many it may. */
export interface ServerLoad {
  maxQueued: number;
  current(): number;
}
// Runs started by the command line in its own process: a person at the machine, not a trigger.
const UNLIMITED_TRIGGERS = new Set(["cli"]);
const noop = () => {};

export class RunAdmission {
  readonly #runs: RunRepository;
  readonly #maxQueued: number;
  readonly #rate: TriggerRateLimiter;
  readonly #server: ServerLoad;
  readonly #turns = new Map<string, Promise<unknown>>();
  /** Admissions past the server-wide check whose run is not queued yet. */
  #reserved = 0;

  constructor(deps: { runs: RunRepository; maxQueued: number; rate: TriggerRateLimiter; server: ServerLoad }) {
    this.#runs = deps.runs;
    this.#maxQueued = deps.maxQueued;
    this.#rate = deps.rate;
    this.#server = deps.server;
  }

  /**
   * Creates a run through `create` if the owner is under both limits and the server under its
   * own; RUN_LIMIT_REACHED, RATE_LIMITED or SERVER_BUSY otherwise. `create` must queue the run it
   * creates before it resolves, so that the server-wide count sees it, and call `visible` once
   * every later count sees its run (committed); until then, or until it ends, this owner's next
   * admission waits. A create that returns an earlier run (same idempotency key) or fails does not
   * count against the rate.
   */
  async admit(
    ownerId: string,
    trigger: string,
    create: (visible: () => void) => Promise<{ run: RunRow; created: boolean }>,
  ): Promise<{ run: RunRow; created: boolean }> {
    if (UNLIMITED_TRIGGERS.has(trigger)) return create(noop);
    // Refused at once, before waiting for the user's turn or asking the database.
    this.#checkServer();
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
      this.#checkServer();
      const undo = this.#rate.take(ownerId);
      this.#reserved++;
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
        } finally {
          this.#reserved--;
        }
      })();
      created = creating;
      // The turn ends once the run is visible, or the create has ended (failed, or found an earlier run).
      await Promise.race([visible, creating.then(noop, noop)]);
    });
    return created as Promise<{ run: RunRow; created: boolean }>;
  }

  #checkServer(): void {
    const { maxQueued } = this.#server;
    if (this.#server.current() + this.#reserved >= maxQueued) {
      throw new AppError("SERVER_BUSY", {
        reason: "queue_full",
        limit: maxQueued,
        retry_after_seconds: RUN_LIMIT_RETRY_SECONDS,
      });
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
