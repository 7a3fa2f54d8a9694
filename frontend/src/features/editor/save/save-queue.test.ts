import { describe, expect, it } from "vitest";
import { createSaveQueue } from "./save-queue.js";

/** A save that ends when the test says so. */
function controlledSaves() {
  const pending: { resolve(): void; reject(error: Error): void }[] = [];
  let started = 0;
  const run = () =>
    new Promise<void>((resolve, reject) => {
      started++;
      pending.push({ resolve, reject });
    });
  return { run, pending, started: () => started };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("save queue", () => {
  it("runs a save at once when idle", async () => {
    const saves = controlledSaves();
    const queue = createSaveQueue(saves.run);
    const done = queue.request();
    expect(saves.started()).toBe(1);
    expect(queue.busy()).toBe(true);
    saves.pending[0]?.resolve();
    await done;
    expect(queue.busy()).toBe(false);
  });

  it("queues exactly one follow-up however many saves are asked for while one runs", async () => {
    const saves = controlledSaves();
    const queue = createSaveQueue(saves.run);
    const first = queue.request();
    const asked = [queue.request(), queue.request(), queue.request()];
    expect(saves.started()).toBe(1);
    expect(asked[0]).toBe(asked[2]);
    saves.pending[0]?.resolve();
    await first;
    await settle();
    expect(saves.started()).toBe(2);
    saves.pending[1]?.resolve();
    await Promise.all(asked);
    expect(saves.started()).toBe(2);
    expect(queue.busy()).toBe(false);
  });

  it("runs the queued save after a failed one, and a later ask starts afresh", async () => {
    const saves = controlledSaves();
    const queue = createSaveQueue(saves.run);
    const first = queue.request();
    const second = queue.request();
    saves.pending[0]?.reject(new Error("server went away"));
    await expect(first).resolves.toBeUndefined();
    await settle();
    expect(saves.started()).toBe(2);
    saves.pending[1]?.resolve();
    await second;
    const third = queue.request();
    expect(saves.started()).toBe(3);
    saves.pending[2]?.resolve();
    await third;
  });
});
