import { describe, expect, it } from "vitest";
import { EmbeddedQueue } from "./embedded-queue.js";

/** A queue whose jobs run until the test finishes them, recording the order they started in. */
function controlledQueue(options: { concurrency: number; perUser: number }) {
  const queue = new EmbeddedQueue({ ...options, onFailure: (runId) => failed.push(runId) });
  const failed: string[] = [];
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  let running = 0;
  let mostAtOnce = 0;
  queue.start(
    (runId) =>
      new Promise<void>((resolve) => {
        started.push(runId);
        running++;
        mostAtOnce = Math.max(mostAtOnce, running);
        finishers.set(runId, () => {
          running--;
          resolve();
        });
      }),
  );
  /** Ends a running job and waits until the queue has reacted (its finally runs in a microtask). */
  const finish = async (runId: string) => {
    const done = finishers.get(runId);
    if (!done) throw new Error(`${runId} is not running; started: ${started.join(",")}`);
    finishers.delete(runId);
    done();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { queue, started, finish, failed, running: () => [...finishers.keys()], mostAtOnce: () => mostAtOnce };
}

describe("embedded queue", () => {
  it("starts another user's run before the first user's backlog", async () => {
    const { queue, started, finish } = controlledQueue({ concurrency: 2, perUser: 2 });
    for (const id of ["a1", "a2", "a3", "a4"]) queue.enqueue(id, "alice");
    queue.enqueue("b1", "bob");
    expect(started).toEqual(["a1", "a2"]);
    await finish("a1");
    expect(started).toEqual(["a1", "a2", "b1"]);
    await finish("a2");
    await finish("b1");
    expect(started).toEqual(["a1", "a2", "b1", "a3", "a4"]);
  });

  it("takes turns between users, least recently served first", async () => {
    const { queue, started, finish } = controlledQueue({ concurrency: 1, perUser: 1 });
    for (const id of ["a1", "a2", "a3"]) queue.enqueue(id, "alice");
    for (const id of ["b1", "b2"]) queue.enqueue(id, "bob");
    for (const id of ["c1", "c2"]) queue.enqueue(id, "carol");
    for (let i = 0; i < 6; i++) await finish(started.at(-1) as string);
    expect(started).toEqual(["a1", "b1", "c1", "a2", "b2", "c2", "a3"]);
  });

  it("runs at most perUser of one user's runs, and at most concurrency in all", async () => {
    const { queue, started, finish, running, mostAtOnce } = controlledQueue({ concurrency: 3, perUser: 2 });
    for (let i = 1; i <= 5; i++) queue.enqueue(`a${i}`, "alice");
    expect(started).toEqual(["a1", "a2"]);
    expect(queue.size("alice")).toEqual({ pending: 3, active: 2 });
    for (let i = 1; i <= 5; i++) queue.enqueue(`b${i}`, "bob");
    expect(started).toEqual(["a1", "a2", "b1"]);
    // Bob is under his share and Alice is at hers: Bob's next run takes the free slot.
    await finish("b1");
    expect(started.at(-1)).toBe("b2");
    await finish("a1");
    expect(started.at(-1)).toBe("a3");
    while (running().length > 0) {
      expect(running().filter((id) => id.startsWith("a")).length).toBeLessThanOrEqual(2);
      expect(running().filter((id) => id.startsWith("b")).length).toBeLessThanOrEqual(2);
      await finish(running()[0] as string);
    }
    expect(started).toHaveLength(10);
    expect(new Set(started).size).toBe(10);
    expect(mostAtOnce()).toBe(3);
  });

  it("runs a run queued again while it runs only after that turn ends", async () => {
    const { queue, started, finish } = controlledQueue({ concurrency: 2, perUser: 2 });
    queue.enqueue("r1", "alice");
    queue.enqueue("r1", "alice");
    expect(started).toEqual(["r1"]);
    await finish("r1");
    expect(started).toEqual(["r1", "r1"]);
    await finish("r1");
    await queue.idle();
    expect(queue.size()).toEqual({ pending: 0, active: 0 });
  });

  it("resolves idle once every queued run has ended, and takes nothing after stop", async () => {
    const { queue, started, finish } = controlledQueue({ concurrency: 1, perUser: 1 });
    queue.enqueue("a1", "alice");
    queue.enqueue("b1", "bob");
    let idle = false;
    const waiting = queue.idle().then(() => {
      idle = true;
    });
    await finish("a1");
    expect(idle).toBe(false);
    await finish("b1");
    await waiting;
    expect(idle).toBe(true);
    queue.stop();
    queue.enqueue("c1", "carol");
    expect(started).toEqual(["a1", "b1"]);
  });

  it("reports a job that fails with its run id and goes on with the next", async () => {
    const failures: { runId: string; error: unknown }[] = [];
    const queue = new EmbeddedQueue({
      concurrency: 1,
      perUser: 1,
      onFailure: (runId, error) => failures.push({ runId, error }),
    });
    const handled: string[] = [];
    // Not async: one handler throws before it returns a promise, one returns a rejected one.
    queue.start((runId) => {
      handled.push(runId);
      if (runId === "sync-throw") throw new Error("the database does not answer");
      if (runId === "rejects") return Promise.reject(new Error("connection terminated"));
      return Promise.resolve();
    });
    for (const id of ["sync-throw", "rejects", "fine"]) queue.enqueue(id, "alice");
    await queue.idle();
    expect(handled).toEqual(["sync-throw", "rejects", "fine"]);
    expect(failures.map((f) => [f.runId, (f.error as Error).message])).toEqual([
      ["sync-throw", "the database does not answer"],
      ["rejects", "connection terminated"],
    ]);
  });

  it("reports nothing for jobs that succeed", async () => {
    const { queue, finish, failed } = controlledQueue({ concurrency: 1, perUser: 1 });
    queue.enqueue("a1", "alice");
    await finish("a1");
    await queue.idle();
    expect(failed).toEqual([]);
  });
});
