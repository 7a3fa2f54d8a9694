// The run bus over Redis pub/sub on a real Redis server the test starts: what one process
// publishes reaches the listeners another process subscribed, in order.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisServer, startRedisServer } from "../../../test/redis-server.js";
import type { StudioEvent } from "../../engine/runtime/events.js";
import { RedisRunBus } from "./redis-run-bus.js";

function event(runId: string, seq: number): StudioEvent {
  return { run_id: runId, seq, ts: new Date().toISOString(), type: "node_started", node_id: "n1", data: {} };
}

describe("RedisRunBus", () => {
  let server: RedisServer;
  const errors: unknown[] = [];
  const buses: RedisRunBus[] = [];

  /**
   * A bus with its own connections, as another process would have, once its publisher is
   * connected (publishing fails at once before, by design).
   */
  async function bus(): Promise<RedisRunBus> {
    const publisher = new Redis(server.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    const b = new RedisRunBus({
      publisher,
      subscriber: new Redis(server.url, { maxRetriesPerRequest: null }),
      onError: (_message, error) => errors.push(error),
    });
    buses.push(b);
    if (publisher.status !== "ready") await new Promise((resolve) => publisher.once("ready", resolve));
    return b;
  }

  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const b of buses) await b.close();
    await server.stop();
  });

  it("delivers a run's events published in one process to a listener in another, in seq order", async () => {
    const worker = await bus();
    const api = await bus();
    const received: number[] = [];
    let done: () => void = () => {};
    const all = new Promise<void>((resolve) => {
      done = resolve;
    });
    const unsubscribe = api.subscribe("run-1", (e) => {
      received.push(e.seq);
      if (received.length === 200) done();
    });
    const other: number[] = [];
    const unsubscribeOther = api.subscribe("run-2", (e) => other.push(e.seq));
    await api.ready("run-1");
    for (let seq = 1; seq <= 200; seq++) worker.publish(event("run-1", seq));
    await all;
    expect(received).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(other).toEqual([]);
    expect(api.listeners()).toBe(2);
    unsubscribe();
    unsubscribeOther();
    expect(api.listeners()).toBe(0);
    expect(errors).toEqual([]);
  });

  it("subscribes once per run however many listeners, and releases the channel with the last one", async () => {
    const api = await bus();
    const admin = new Redis(server.url);
    try {
      const first = api.subscribe("run-9", () => {});
      const second = api.subscribe("run-9", () => {});
      await api.ready("run-9");
      const count = async () => (await admin.pubsub("NUMSUB", "superstep:run-events:run-9"))[1];
      expect(await count()).toBe(1);
      first();
      expect(await count()).toBe(1);
      second();
      await expect.poll(count).toBe(0);
    } finally {
      admin.disconnect();
    }
  });

  it("says publishing is worth it for any run: listeners may be in another process", async () => {
    expect((await bus()).has("nobody-here")).toBe(true);
  });
});
