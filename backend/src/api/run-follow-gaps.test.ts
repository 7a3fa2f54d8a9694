// Following a run's events (the editor's socket and the SSE stream both use RunService.follow):
// a live event that skips ahead of what the follower has (a bus that lost messages, as Redis
// pub/sub does while it reconnects) has the missing events read from the database first, so the
// follower sees every seq once, in order. A worker's event published late, after the run_finished
// of a cancellation made elsewhere, still reaches the follower once and before that run_finished.
// A follower until the turn's end (the SSE stream) stops at that end, and gets it even when the row
// says the run ended before the bus brought the events committed with it.

import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { approvalWorkflow } from "../../test/engine-harness.js";
import { type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";
import type { Actor } from "../core/authz.js";
import type { StudioEvent } from "../engine/runtime/events.js";
import { SQLITE_FILE } from "../repositories/database.js";
import { RunRepository } from "../repositories/run.repository.js";

describe("following a run's events", () => {
  let studio: TestStudio;
  let owner: Session;
  let actor: Actor;

  beforeAll(async () => {
    studio = await startTestStudio();
    owner = await setupOwner(studio);
    actor = { userId: owner.userId, role: "owner", via: "session" };
  });
  afterAll(() => studio.close());

  /** A run waiting at its Human node, with its row's lease and next seq. */
  const waitingRun = async () => {
    const run = await studio.container.runs.createForDocument(actor, approvalWorkflow(), {}, "api");
    await studio.container.runs.executeNow(run.id);
    const row = await studio.container.database.db
      .selectFrom("runs")
      .select(["status", "lease_gen", "next_seq"])
      .where("id", "=", run.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("waiting");
    return { run, row };
  };

  it("fills a gap in live events from the database, and drops repeats", async () => {
    const { run, row } = await waitingRun();
    const last = row.next_seq - 1;
    // The worker's side: fenced appends of the run's events.
    const { database } = studio.container;
    const runs = new RunRepository(database.db, { settled: () => database.settled(), writes: database.writes });

    const seen: number[] = [];
    const waiters: { count: number; resolve: () => void }[] = [];
    const unsubscribe = await studio.container.runs.follow(actor, run.id, 0, (event) => {
      seen.push(event.seq);
      for (const w of waiters.filter((w) => seen.length >= w.count)) w.resolve();
    });
    const seenCount = (count: number) =>
      new Promise<void>((resolve) => {
        if (seen.length >= count) resolve();
        else waiters.push({ count, resolve });
      });
    try {
      // Caught up from the database.
      expect(seen).toEqual(Array.from({ length: last }, (_, i) => i + 1));

      // Three more events reach the disk, but only the last one is published: the other two were
      // lost on the way.
      const later = [last + 1, last + 2, last + 3].map((seq) => ({
        seq,
        type: "node_token",
        node_id: "ask",
        superstep: null,
        ts: new Date().toISOString(),
        data: JSON.stringify({ text: `t${seq}` }),
      }));
      expect(await runs.appendEvents(run.id, row.lease_gen, later)).toBe(true);
      const published = (seq: number): StudioEvent => ({
        run_id: run.id,
        seq,
        ts: new Date().toISOString(),
        type: "node_token",
        node_id: "ask",
        data: { text: `t${seq}` },
      });
      studio.container.bus.publish(published(last + 3));
      await seenCount(last + 3);
      expect(seen.slice(last)).toEqual([last + 1, last + 2, last + 3]);

      // A repeat of an event already delivered is dropped; the next one in order passes.
      studio.container.bus.publish(published(last + 2));
      const next = [{ ...later[0], seq: last + 4 }] as typeof later;
      expect(await runs.appendEvents(run.id, row.lease_gen, next)).toBe(true);
      studio.container.bus.publish(published(last + 4));
      await seenCount(last + 4);
      expect(seen).toEqual(Array.from({ length: last + 4 }, (_, i) => i + 1));
    } finally {
      unsubscribe();
    }
  });

  it("delivers a worker's event published after a cancellation's run_finished once, before it", async () => {
    const { run, row } = await waitingRun();
    const { database } = studio.container;
    const runs = new RunRepository(database.db, { settled: () => database.settled(), writes: database.writes });

    const seen: StudioEvent[] = [];
    const waiters: { test: () => boolean; resolve: () => void }[] = [];
    const unsubscribe = await studio.container.runs.follow(actor, run.id, 0, (event) => {
      seen.push(event);
      for (const w of waiters.filter((w) => w.test())) w.resolve();
    });
    const finished = new Promise<void>((resolve) => {
      const test = () => seen.some((event) => event.type === "run_finished");
      if (test()) resolve();
      else waiters.push({ test, resolve });
    });
    try {
      // The worker's token reaches the disk; its publication is late (still on its way to the bus).
      const lateSeq = row.next_seq;
      const late = {
        seq: lateSeq,
        type: "node_token",
        node_id: "ask",
        superstep: null,
        ts: new Date().toISOString(),
        data: JSON.stringify({ text: "late" }),
      };
      expect(await runs.appendEvents(run.id, row.lease_gen, [late])).toBe(true);
      // The run is cancelled from outside its worker: its run_finished is stored and published now.
      await studio.container.runs.cancel(actor, run.id);
      await finished;
      // Then the worker's late publication arrives.
      studio.container.bus.publish({
        run_id: run.id,
        seq: lateSeq,
        ts: late.ts,
        type: "node_token",
        node_id: "ask",
        data: { text: "late" },
      });

      const seqs = seen.map((event) => event.seq);
      expect(seqs).toEqual(Array.from({ length: lateSeq + 1 }, (_, i) => i + 1));
      expect(seen.at(-2)).toMatchObject({ seq: lateSeq, type: "node_token", data: { text: "late" } });
      expect(seen.at(-1)).toMatchObject({ seq: lateSeq + 1, type: "run_finished" });
    } finally {
      unsubscribe();
    }
  });

  it("hands on a turn's events up to its end and nothing of the next turn, already on disk", async () => {
    const { run, row } = await waitingRun();
    const waitingSeq = row.next_seq - 1;
    await studio.container.runs.resume(actor, run.id, { ok: true }, "caller");
    await studio.container.runs.executeNow(run.id);

    const follow = async (after: number) => {
      const seen: StudioEvent[] = [];
      const following = await studio.container.runs.followTurn(actor, run.id, after, (event) => seen.push(event));
      await following.ended;
      following.stop();
      return seen;
    };
    // The first turn's events, read back in one page with the second turn's after them.
    const first = await follow(0);
    expect(first.map((event) => event.seq)).toEqual(Array.from({ length: waitingSeq }, (_, i) => i + 1));
    expect(first.at(-1)?.type).toBe("run_waiting");
    // From there, the second turn up to its run_finished.
    const second = await follow(waitingSeq);
    expect(second[0]?.seq).toBe(waitingSeq + 1);
    expect(second.at(-1)).toMatchObject({ type: "run_finished", data: { status: "ok" } });
  });

  // SQLite only: another connection's synchronous commit is how the test lands a worker's ending
  // exactly between the follower's catch-up and its reading of the row (PostgreSQL has no
  // synchronous client to do that with; the code path is the same).
  it.skipIf(inject("dbKind") !== "sqlite")(
    "ends a turn's stream after the events committed with the row's ending, though the bus has not brought them",
    async () => {
      const run = await studio.container.runs.createForDocument(actor, approvalWorkflow(), {}, "api");
      const worker = new DatabaseSync(join(studio.config.dataDir, SQLITE_FILE));
      const append = worker.prepare(
        "insert into run_events (run_id, seq, type, node_id, superstep, ts, data) values (?, ?, ?, null, null, ?, ?)",
      );
      try {
        // A worker started the run: its first event is on disk.
        append.run(run.id, 1, "run_started", new Date().toISOString(), "{}");
        worker.prepare("update runs set status = 'running', next_seq = 2 where id = ?").run(run.id);

        const seen: StudioEvent[] = [];
        const following = await studio.container.runs.followTurn(actor, run.id, 0, (event) => {
          seen.push(event);
          // Right after the catch-up hands on the last event on disk, the worker ends the run: the
          // row and its run_finished commit together, and nothing is published on the bus.
          if (event.seq === 1) {
            worker.exec("begin");
            append.run(run.id, 2, "run_finished", new Date().toISOString(), JSON.stringify({ status: "ok" }));
            worker.prepare("update runs set status = 'ok', next_seq = 3 where id = ?").run(run.id);
            worker.exec("commit");
          }
        });
        try {
          await following.ended;
          expect(seen.map((event) => [event.seq, event.type])).toEqual([
            [1, "run_started"],
            [2, "run_finished"],
          ]);
        } finally {
          following.stop();
        }
      } finally {
        worker.close();
      }
    },
  );
});
