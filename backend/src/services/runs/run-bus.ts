// Live run events, from where a run executes to whoever follows it. One process: in memory
// (MemoryRunBus). Several processes: Redis pub/sub (RedisRunBus). A bus is a fast path only: every
// event is published after it is on disk, so a follower that subscribes, waits for `ready`, then
// reads the events after its last seq from the database, misses nothing (RunService.follow).
import { EventEmitter } from "node:events";
import type { StudioEvent } from "../../engine/runtime/events.js";

export interface RunBus {
  readonly kind: "memory" | "redis";
  /** Hands an event (already on disk) to this run's listeners, wherever they are. */
  publish(event: StudioEvent): void;
  /** Listeners subscribed in this process now, all runs together. */
  listeners(): number;
  /**
   * Whether publishing this run's events can reach anyone: a listener here, or (over Redis) in any
   * process, so always true there.
   */
  has(runId: string): boolean;
  /** Listens to one run's events in this process; returns the unsubscribe. */
  subscribe(runId: string, listener: (event: StudioEvent) => void): () => void;
  /** Resolves once events published from now on reach this process's listeners of the run. */
  ready(runId: string): Promise<void>;
  close(): Promise<void>;
}

/** Listeners by run id, in this process: the in-memory bus, and the local side of the Redis bus. */
export class LocalListeners {
  readonly #emitter = new EventEmitter().setMaxListeners(0);

  emit(event: StudioEvent): void {
    this.#emitter.emit(event.run_id, event);
  }

  count(): number {
    return this.#emitter.eventNames().reduce((sum, name) => sum + this.#emitter.listenerCount(name), 0);
  }

  has(runId: string): boolean {
    return this.#emitter.listenerCount(runId) > 0;
  }

  add(runId: string, listener: (event: StudioEvent) => void): () => void {
    this.#emitter.on(runId, listener);
    return () => this.#emitter.off(runId, listener);
  }
}

export class MemoryRunBus implements RunBus {
  readonly kind = "memory";
  readonly #local = new LocalListeners();

  publish(event: StudioEvent): void {
    this.#local.emit(event);
  }

  listeners(): number {
    return this.#local.count();
  }

  has(runId: string): boolean {
    return this.#local.has(runId);
  }

  subscribe(runId: string, listener: (event: StudioEvent) => void): () => void {
    return this.#local.add(runId, listener);
  }

  ready(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
