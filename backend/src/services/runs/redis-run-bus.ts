// The run bus over Redis pub/sub, for several processes: a worker publishes each event of a run
// (once it is on disk) on the run's channel; a process with listeners of that run subscribes to the
// channel (one subscription per run, however many listeners) and hands what arrives to them.
// Pub/sub keeps nothing: a message published while a subscriber was disconnected is lost, which
// RunService.follow makes good by reading the missing seqs from the database.
import type { Redis } from "ioredis";
import type { StudioEvent } from "../../engine/runtime/events.js";
import { LocalListeners, type RunBus } from "./run-bus.js";

const CHANNEL_PREFIX = "superstep:run-events:";

export class RedisRunBus implements RunBus {
  readonly kind = "redis";
  readonly #publisher: Redis;
  readonly #subscriber: Redis;
  readonly #onError: (message: string, error: unknown, runId: string) => void;
  readonly #local = new LocalListeners();
  /** Run id → its SUBSCRIBE, resolved once Redis confirmed it. */
  readonly #subscribed = new Map<string, Promise<void>>();

  /**
   * `publisher` and `subscriber` are two connections of this process's own (a subscribing
   * connection can do nothing else); both are closed by close().
   */
  constructor(deps: {
    publisher: Redis;
    subscriber: Redis;
    onError(message: string, error: unknown, runId: string): void;
  }) {
    this.#publisher = deps.publisher;
    this.#subscriber = deps.subscriber;
    this.#onError = deps.onError;
    this.#subscriber.on("message", (channel: string, message: string) => {
      if (!channel.startsWith(CHANNEL_PREFIX)) return;
      let event: StudioEvent;
      try {
        event = JSON.parse(message) as StudioEvent;
      } catch (error) {
        this.#onError("run event from Redis not readable", error, channel.slice(CHANNEL_PREFIX.length));
        return;
      }
      this.#local.emit(event);
    });
  }

  publish(event: StudioEvent): void {
    this.#publisher.publish(CHANNEL_PREFIX + event.run_id, JSON.stringify(event)).catch((error: unknown) =>
      // Followers read what they missed from the database.
      this.#onError("run event not published on Redis", error, event.run_id),
    );
  }

  listeners(): number {
    return this.#local.count();
  }

  /** Listeners may be in any process: always worth publishing. */
  has(_runId: string): boolean {
    return true;
  }

  subscribe(runId: string, listener: (event: StudioEvent) => void): () => void {
    const remove = this.#local.add(runId, listener);
    if (!this.#subscribed.has(runId)) {
      const done = this.#subscriber.subscribe(CHANNEL_PREFIX + runId).then(() => undefined);
      // A failed SUBSCRIBE is told to whoever waits for ready(); it is not left unhandled.
      done.catch((error: unknown) => this.#onError("run events not subscribed on Redis", error, runId));
      this.#subscribed.set(runId, done);
    }
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      remove();
      if (this.#local.has(runId)) return;
      this.#subscribed.delete(runId);
      this.#subscriber
        .unsubscribe(CHANNEL_PREFIX + runId)
        .catch((error: unknown) => this.#onError("run events not unsubscribed on Redis", error, runId));
    };
  }

  ready(runId: string): Promise<void> {
    return this.#subscribed.get(runId) ?? Promise.resolve();
  }

  async close(): Promise<void> {
    this.#subscribed.clear();
    this.#subscriber.disconnect();
    this.#publisher.disconnect();
  }
}
