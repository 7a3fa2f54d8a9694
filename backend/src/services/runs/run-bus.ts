// Live run events for listeners in this process. With several processes this moves to Redis.
import { EventEmitter } from "node:events";
import type { StudioEvent } from "../../engine/runtime/events.js";

export class RunBus {
  readonly #emitter = new EventEmitter().setMaxListeners(0);

  publish(event: StudioEvent): void {
    this.#emitter.emit(event.run_id, event);
  }

  /** Listeners subscribed now, all runs together. */
  listeners(): number {
    return this.#emitter.eventNames().reduce((sum, name) => sum + this.#emitter.listenerCount(name), 0);
  }

  /** Whether anyone listens to this run now. */
  has(runId: string): boolean {
    return this.#emitter.listenerCount(runId) > 0;
  }

  subscribe(runId: string, listener: (event: StudioEvent) => void): () => void {
    this.#emitter.on(runId, listener);
    return () => this.#emitter.off(runId, listener);
  }
}
