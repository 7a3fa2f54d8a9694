// Whether one user may start another run: under STUDIO_USER_MAX_QUEUED queued and running runs,
// and under STUDIO_USER_RUN_RATE starts a minute. One user's admissions take turns at the count and
// each also counts the runs admitted before it and not committed yet, so concurrent triggers cannot
// all slip under the limit together. One count decides every admission that was waiting when it
// started, as long as they fit under it: a burst of triggers waits for one count, not for one
// each in turn (a round trip each on PostgreSQL, which put a trigger at 100 in flight 150 ms
// behind the counts of those before it). And
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

/** One owner's admissions in line: arrivals numbered, and what the last count allows. */
interface Burst {
  arrivals: number;
  /** The last count that admitted: it started after arrival `after`, and `bound` runs are counted against it. */
  counted?: { after: number; bound: number };
}

export class RunAdmission {
  readonly #runs: RunRepository;
  readonly #maxQueued: number;
  readonly #rate: TriggerRateLimiter;
  readonly #server: ServerLoad;
  readonly #turns = new Map<string, Promise<unknown>>();
  /** Per owner while admissions wait their turn: how many have arrived, and the last count's burst. */
  readonly #bursts = new Map<string, Burst>();
  /** Per owner, the admitted runs no count sees yet (their create has not committed or ended). */
  readonly #unseen = new Map<string, Set<object>>();
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
   * admissions count it themselves. A create that returns an earlier run (same idempotency key) or fails does not
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
    const burst = this.#burstOf(ownerId);
    const arrival = ++burst.arrivals;
    // One owner's admissions take turns at the count, and each counts the runs admitted before it
    // that no count can see yet (created but not committed) on top of the database's count. The
    // turn ends once the create has started, not when its run is committed: on PostgreSQL a
    // commit waits for the disk, and one owner's triggers would otherwise take turns at it.
    let created: Promise<{ run: RunRow; created: boolean }> | undefined;
    await this.#oneAtATime(ownerId, async () => {
      await this.#checkOwner(ownerId, burst, arrival);
      this.#checkServer();
      const undo = this.#rate.take(ownerId);
      this.#reserved++;
      const unseen = this.#unseenOf(ownerId);
      const token = {};
      unseen.add(token);
      const seen = () => {
        unseen.delete(token);
        if (unseen.size === 0 && this.#unseen.get(ownerId) === unseen) this.#unseen.delete(ownerId);
      };
      created = (async () => {
        try {
          const result = await create(seen);
          if (!result.created) undo();
          return result;
        } catch (error) {
          undo();
          throw error;
        } finally {
          seen();
          this.#reserved--;
        }
      })();
      // Handled by the caller; this keeps a failed create from being reported as unhandled meanwhile.
      created.catch(noop);
    });
    return created as Promise<{ run: RunRow; created: boolean }>;
  }

  /**
   * RUN_LIMIT_REACHED unless the owner's queued and running runs, with those admitted here and not
   * committed yet, are under the limit. A run committed while the count ran may or may not be in
   * it: when that decides the answer, count again (no admission of this owner starts meanwhile).
   */
  async #checkOwner(ownerId: string, burst: Burst, arrival: number): Promise<void> {
    // A count that started after this admission arrived, with room left: the runs it saw, those
    // unseen then and those it admitted since bound what is queued and running now from above (a
    // run that ended since only makes it stricter).
    const counted = burst.counted;
    if (counted && counted.after >= arrival && counted.bound < this.#maxQueued) {
      counted.bound++;
      return;
    }
    const unseen = this.#unseenOf(ownerId);
    for (;;) {
      const arrived = burst.arrivals;
      const before = unseen.size;
      const counted = await this.#runs.countActive(ownerId);
      const after = unseen.size;
      if (counted + before < this.#maxQueued) {
        burst.counted = { after: arrived, bound: counted + before + 1 };
        return;
      }
      if (counted + after >= this.#maxQueued) {
        throw new AppError("RUN_LIMIT_REACHED", {
          limit: this.#maxQueued,
          retry_after_seconds: RUN_LIMIT_RETRY_SECONDS,
        });
      }
    }
  }

  #burstOf(ownerId: string): Burst {
    let burst = this.#bursts.get(ownerId);
    if (!burst) {
      burst = { arrivals: 0 };
      this.#bursts.set(ownerId, burst);
    }
    return burst;
  }

  #unseenOf(ownerId: string): Set<object> {
    let unseen = this.#unseen.get(ownerId);
    if (!unseen) {
      unseen = new Set();
      this.#unseen.set(ownerId, unseen);
    }
    return unseen;
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
      if (this.#turns.get(ownerId) === settled) {
        this.#turns.delete(ownerId);
        this.#bursts.delete(ownerId);
      }
    }
  }
}
