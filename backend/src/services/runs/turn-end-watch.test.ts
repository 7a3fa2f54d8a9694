import { afterEach, describe, expect, it, vi } from "vitest";
import type { StudioEvent } from "../../engine/runtime/events.js";
import { MemoryRunBus, type RunBus } from "./run-bus.js";
import { endsTurn, endWithin, turnEndOf, watchTurnEnd } from "./turn-end-watch.js";

const event = (type: StudioEvent["type"], data: Record<string, unknown> = {}, runId = "r1", seq = 1): StudioEvent => ({
  run_id: runId,
  seq,
  ts: new Date(0).toISOString(),
  type,
  data,
});

describe("the end of a run's turn", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("is said by run_finished, run_waiting and run_paused, and by no event within the turn", () => {
    expect(turnEndOf(event("run_finished", { status: "ok", output: { a: 1 }, state: { a: 1 } }))).toEqual({
      status: "ok",
      output: { a: 1 },
      error: null,
      waiting: null,
      next: null,
    });
    const error = { code: "NODE_FAILED", message: "boom" };
    expect(turnEndOf(event("run_finished", { status: "error", error }))).toMatchObject({ status: "error", error });
    const form = { message: "OK?", fields: [], expires_at: null };
    expect(turnEndOf(event("run_waiting", form))).toMatchObject({ status: "waiting", waiting: form });
    expect(turnEndOf(event("run_paused", { next: ["b"] }))).toMatchObject({ status: "paused", next: ["b"] });
    for (const type of ["run_finished", "run_waiting", "run_paused"]) expect(endsTurn(type)).toBe(true);
    for (const type of ["run_started", "node_started", "node_finished", "node_token", "error"] as const) {
      expect(turnEndOf(event(type))).toBeNull();
      expect(endsTurn(type)).toBe(false);
    }
  });

  it("is heard for its own run only, and says the run started at its first event", async () => {
    const bus = new MemoryRunBus();
    const watch = await watchTurnEnd(bus, "r1");
    expect(watch.started()).toBe(false);
    bus.publish(event("run_finished", { status: "ok" }, "r2"));
    expect(watch.started()).toBe(false);
    bus.publish(event("run_started", {}, "r1", 1));
    expect(watch.started()).toBe(true);
    bus.publish(event("run_finished", { status: "ok", output: 5 }, "r1", 2));
    await expect(watch.ended).resolves.toMatchObject({ status: "ok", output: 5 });
    watch.stop();
    expect(bus.listeners()).toBe(0);
  });

  it("stops listening when the bus cannot be made ready, and says why", async () => {
    const bus = new MemoryRunBus();
    const failing: RunBus = Object.assign(Object.create(bus) as RunBus, {
      subscribe: bus.subscribe.bind(bus),
      listeners: bus.listeners.bind(bus),
      ready: () => Promise.reject(new Error("redis away")),
    });
    await expect(watchTurnEnd(failing, "r1")).rejects.toThrow("redis away");
    expect(bus.listeners()).toBe(0);
  });

  it("is waited for up to a time, or until the caller goes away", async () => {
    vi.useFakeTimers();
    const bus = new MemoryRunBus();
    const watch = await watchTurnEnd(bus, "r1");
    const outOfTime = endWithin(watch, 1_000, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(999);
    bus.publish(event("node_started", {}, "r1", 1));
    await vi.advanceTimersByTimeAsync(1);
    await expect(outOfTime).resolves.toBeNull();

    const caller = new AbortController();
    const goneAway = endWithin(watch, 60_000, caller.signal);
    caller.abort();
    await expect(goneAway).resolves.toBeNull();
    await expect(endWithin(watch, 60_000, caller.signal)).resolves.toBeNull();

    const inTime = endWithin(watch, 1_000, new AbortController().signal);
    bus.publish(event("run_paused", { next: ["x"] }, "r1", 2));
    await expect(inTime).resolves.toMatchObject({ status: "paused", next: ["x"] });
    expect(vi.getTimerCount()).toBe(0);
    watch.stop();
  });
});
