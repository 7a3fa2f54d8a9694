// The in-process queue of the embedded mode: run ids in, each with the user who owns it, handled
// by up to `concurrency` workers at once and at most `perUser` of one user's runs at once. The
// next run comes from the user served least recently among those under their share (round-robin),
// so one user's backlog never holds back another user's runs. A run id queued twice is handled
// once at a time; the lease decides who really runs it.
import type { JobFailureHandler, JobHandler, RunQueue } from "./run-queue.js";

export type { JobFailureHandler, JobHandler } from "./run-queue.js";

interface OwnerQueue {
  /** Queued run ids in order (a set: a backlog of thousands is checked and taken from at once). */
  pending: Set<string>;
  active: number;
  /** When this user was last picked (a counter); 0 for a user not picked yet. */
  lastServed: number;
}

export class EmbeddedQueue implements RunQueue {
  readonly kind = "memory";
  readonly #owners = new Map<string, OwnerQueue>();
  /** Running run id → its owner. */
  readonly #active = new Map<string, string>();
  readonly #concurrency: number;
  readonly #perUser: number;
  readonly #onFailure: JobFailureHandler;
  #handler: JobHandler | null = null;
  #idle: (() => void)[] = [];
  #stopped = false;
  #served = 0;

  constructor(options: { concurrency: number; perUser: number; onFailure: JobFailureHandler }) {
    this.#concurrency = options.concurrency;
    this.#perUser = options.perUser;
    this.#onFailure = options.onFailure;
  }

  start(handler: JobHandler): void {
    this.#handler = handler;
    this.#pump();
  }

  /** Queued at once (the returned promise is for the RunQueue port); `turn` is not needed here. */
  enqueue(runId: string, ownerId: string, _turn?: number): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    let owner = this.#owners.get(ownerId);
    if (!owner) {
      owner = { pending: new Set(), active: 0, lastServed: 0 };
      this.#owners.set(ownerId, owner);
    }
    owner.pending.add(runId);
    this.#pump();
    return Promise.resolve();
  }

  /** How many runs wait and run, for one user or in all (tests, health). */
  size(ownerId?: string): { pending: number; active: number } {
    if (ownerId !== undefined) {
      const owner = this.#owners.get(ownerId);
      return { pending: owner?.pending.size ?? 0, active: owner?.active ?? 0 };
    }
    let pending = 0;
    for (const owner of this.#owners.values()) pending += owner.pending.size;
    return { pending, active: this.#active.size };
  }

  /** Resolves when nothing is queued or running (tests and shutdown). */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  stop(): void {
    this.#stopped = true;
    for (const [ownerId, owner] of this.#owners) {
      owner.pending.clear();
      if (owner.active === 0) this.#owners.delete(ownerId);
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  #isIdle(): boolean {
    return this.#active.size === 0 && this.size().pending === 0;
  }

  /** The next run to start: from the least recently served user under their share. */
  #next(): { runId: string; ownerId: string } | null {
    let chosen: { ownerId: string; owner: OwnerQueue; runId: string } | null = null;
    for (const [ownerId, owner] of this.#owners) {
      if (owner.active >= this.#perUser) continue;
      if (chosen && owner.lastServed >= chosen.owner.lastServed) continue;
      // A run that is still running from an earlier enqueue waits for that turn to end.
      for (const runId of owner.pending) {
        if (this.#active.has(runId)) continue;
        chosen = { ownerId, owner, runId };
        break;
      }
    }
    if (!chosen) return null;
    chosen.owner.pending.delete(chosen.runId);
    chosen.owner.lastServed = ++this.#served;
    return { runId: chosen.runId, ownerId: chosen.ownerId };
  }

  #pump(): void {
    const handler = this.#handler;
    if (!handler) return;
    while (this.#active.size < this.#concurrency) {
      const next = this.#next();
      if (!next) break;
      const { runId, ownerId } = next;
      const owner = this.#owners.get(ownerId) as OwnerQueue;
      owner.active++;
      this.#active.set(runId, ownerId);
      let job: Promise<void>;
      try {
        job = handler(runId);
      } catch (error) {
        job = Promise.reject(error);
      }
      void job
        .catch((error: unknown) => this.#onFailure(runId, error))
        .finally(() => {
          this.#active.delete(runId);
          owner.active--;
          if (owner.active === 0 && owner.pending.size === 0) this.#owners.delete(ownerId);
          this.#pump();
          if (this.#isIdle()) for (const resolve of this.#idle.splice(0)) resolve();
        });
    }
  }
}
