// The BullMQ run queue on a real Redis server the test starts: jobs wait in Redis for a worker
// process, one turn queued twice is one job, and one user's share leaves room for others.
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RedisServer, startRedisServer } from "../../../test/redis-server.js";
import { RedisRunQueue } from "./redis-run-queue.js";

const bullmq = await import("bullmq");

/** The connection jobs are added on, as the studio opens it (redis-mode.ts). */
function producer(url: string): Redis {
  return new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
}

describe("RedisRunQueue", () => {
  let server: RedisServer;
  const opened: RedisRunQueue[] = [];
  const failures: unknown[] = [];

  function queue(options: { concurrency?: number; perUser?: number } = {}): RedisRunQueue {
    const q = new RedisRunQueue(bullmq, {
      url: server.url,
      connection: producer(server.url),
      concurrency: options.concurrency ?? 4,
      perUser: options.perUser ?? 4,
      lockMs: 30_000,
      onFailure: (_runId, error) => failures.push(error),
      onError: (_message, error) => failures.push(error),
      onLockLost: (_runId, error) => failures.push(error),
      onStalled: (runId) => failures.push(`stalled ${runId}`),
    });
    opened.push(q);
    return q;
  }

  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterEach(async () => {
    for (const q of opened.splice(0)) {
      q.stop();
      await q.close();
    }
    const client = new Redis(server.url);
    await client.flushall();
    client.disconnect();
    expect(failures).toEqual([]);
  });
  afterAll(() => server?.stop());

  it("keeps jobs queued while no process executes them, and hands them to one that starts", async () => {
    const api = queue();
    await api.enqueue("run-a", "alice", 0);
    await api.enqueue("run-b", "bob", 0);
    expect(await api.waiting()).toBe(2);

    const worker = queue();
    const handled: string[] = [];
    let done: () => void = () => {};
    const both = new Promise<void>((resolve) => {
      done = resolve;
    });
    worker.start(async (runId) => {
      handled.push(runId);
      if (handled.length === 2) done();
    });
    await both;
    await worker.idle();
    expect(handled.sort()).toEqual(["run-a", "run-b"]);
    expect(await api.waiting()).toBe(0);
  });

  it("keeps one job for a turn queued twice, and a new one for the run's next turn", async () => {
    const q = queue();
    await q.enqueue("run-a", "alice", 0);
    await q.enqueue("run-a", "alice", 0);
    expect(await q.waiting()).toBe(1);
    await q.enqueue("run-a", "alice", 1);
    expect(await q.waiting()).toBe(2);
  });

  it("executes at most perUser runs of one user at once here, and lets another user's run pass meanwhile", async () => {
    const q = queue({ concurrency: 4, perUser: 1 });
    const started: string[] = [];
    const finished = new Set<string>();
    let releaseFirst: () => void = () => {};
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    let all: () => void = () => {};
    const allDone = new Promise<void>((resolve) => {
      all = resolve;
    });
    const overlaps: string[] = [];
    q.start(async (runId) => {
      // One of alice's runs at a time: the other one starts only after the first finished.
      if (runId.startsWith("alice") && started.some((id) => id.startsWith("alice") && !finished.has(id))) {
        overlaps.push(runId);
      }
      started.push(runId);
      if (runId === "alice-1") await firstHeld;
      if (runId === "bob-1") releaseFirst();
      finished.add(runId);
      if (finished.size === 3) all();
    });
    await q.enqueue("alice-1", "alice", 0);
    await q.enqueue("alice-2", "alice", 0);
    await q.enqueue("bob-1", "bob", 0);
    await allDone;
    await q.idle();
    expect(overlaps).toEqual([]);
    // bob's run started while alice's first held her share, and released it.
    expect(started.indexOf("bob-1")).toBeLessThan(started.indexOf("alice-2"));
    expect(started[0]).toBe("alice-1");
  });

  it("reports a queued run whose handler throws, and goes on with the next", async () => {
    const q = queue({ concurrency: 1 });
    const handled: string[] = [];
    const seen: unknown[] = [];
    const reporting = new RedisRunQueue(bullmq, {
      url: server.url,
      connection: producer(server.url),
      concurrency: 1,
      perUser: 1,
      lockMs: 30_000,
      onFailure: (runId, error) => seen.push([runId, (error as Error).message]),
      onError: (_message, error) => failures.push(error),
      onLockLost: (_runId, error) => failures.push(error),
      onStalled: (runId) => failures.push(`stalled ${runId}`),
    });
    opened.push(reporting);
    let second: () => void = () => {};
    const secondDone = new Promise<void>((resolve) => {
      second = resolve;
    });
    reporting.start(async (runId) => {
      handled.push(runId);
      if (runId === "bad") throw new Error("boom");
      second();
    });
    await q.enqueue("bad", "alice", 0);
    await q.enqueue("good", "bob", 0);
    await secondDone;
    await reporting.idle();
    expect(handled).toEqual(["bad", "good"]);
    expect(seen).toEqual([["bad", "boom"]]);
  });

  it("refuses at once while Redis is away after it answered, and queues again once it is back", async () => {
    const q = queue();
    await q.enqueue("run-a", "alice", 0);
    await server.kill();
    await expect
      .poll(async () =>
        q.enqueue("run-b", "bob", 0).then(
          () => "queued",
          (e: Error) => e.message,
        ),
      )
      .toBe("Redis does not answer (the connection is being re-established)");
    await server.restart();
    await expect
      .poll(async () =>
        q.enqueue("run-c", "carol", 0).then(
          () => "queued",
          (e: Error) => e.message,
        ),
      )
      .toBe("queued");
    // The append-only file kept the job queued before the restart.
    expect(await q.waiting()).toBe(2);
    // What the queue reported meanwhile was Redis going away, nothing else.
    for (const error of failures.splice(0))
      expect(String(error)).toMatch(/ECONNREFUSED|Connection is closed|ECONNRESET/);
  });

  it("refuses to queue, after a bounded wait, while Redis does not answer (the run stays queued in the database)", async () => {
    const refused: unknown[] = [];
    // Nothing listens on port 1 of loopback.
    const connection = producer("redis://127.0.0.1:1").on("error", (error: Error) => refused.push(error));
    const q = new RedisRunQueue(bullmq, {
      url: "redis://127.0.0.1:1",
      connection,
      concurrency: 1,
      perUser: 1,
      lockMs: 30_000,
      onFailure: () => {},
      onError: () => {},
      onLockLost: () => {},
      onStalled: () => {},
    });
    opened.push(q);
    await expect(q.enqueue("run-a", "alice", 0)).rejects.toThrow(/Redis did not answer/);
    expect(q.size()).toEqual({ pending: 0, active: 0 });
    expect(refused.length).toBeGreaterThan(0);
  });
});
