import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { describe, expect, it } from "vitest";
import { TimeSlicer, VALIDATION_PAUSE_CHANNEL, type ValidationPause } from "./time-slicer.js";

describe("time slicer", () => {
  it("yields to the event loop when its slice is used up, and not before", async () => {
    const patient = new TimeSlicer(60_000);
    expect(patient.due()).toBe(false);
    await patient.tick();
    expect(patient.pauses).toBe(0);

    const eager = new TimeSlicer(0);
    const order: string[] = [];
    setImmediate(() => order.push("other work"));
    await eager.tick();
    order.push("after the pause");
    expect(order).toEqual(["other work", "after the pause"]);
    expect(eager.pauses).toBe(1);
  });

  it("announces each pause and stays paused while a subscriber holds it", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const seen: string[] = [];
    const onPause = (message: unknown) => {
      seen.push("paused");
      (message as ValidationPause).hold(held);
    };
    subscribe(VALIDATION_PAUSE_CHANNEL, onPause);
    try {
      const pausing = new TimeSlicer(0).pause().then(() => seen.push("resumed"));
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      seen.push("released");
      release();
      await pausing;
    } finally {
      unsubscribe(VALIDATION_PAUSE_CHANNEL, onPause);
    }
    expect(seen).toEqual(["paused", "released", "resumed"]);
  });
});
