import { describe, expect, it } from "vitest";
import type { StudioEvent } from "../../engine/runtime/events.js";
import { EventRecorder, type EventRecorderStop } from "./event-recorder.js";

const event = (seq: number) => ({ run_id: "r1", seq, type: "node_started" }) as unknown as StudioEvent;
const seqs = (events: StudioEvent[]) => events.map((e) => (e as unknown as { seq: number }).seq);

/** A database write the test finishes by hand: resolved with true (kept), false (lease gone) or an error. */
interface PendingWrite {
  events: number[];
  finish(kept: boolean): void;
  fail(error: Error): void;
}

/** A wait for the disk the test ends by hand: the sync completed, or the disk failed. */
interface PendingSync {
  done(): void;
  fail(error: Error): void;
}

function recorderWithManualWrites() {
  const writes: PendingWrite[] = [];
  const syncs: PendingSync[] = [];
  const written: number[][] = [];
  const stops: EventRecorderStop[] = [];
  let writeStarted: () => void = () => {};
  let syncAsked: () => void = () => {};
  const recorder = new EventRecorder({
    append: (events) =>
      new Promise<boolean>((resolve, reject) => {
        writes.push({ events: seqs(events), finish: resolve, fail: reject });
        writeStarted();
      }),
    onDisk: () =>
      new Promise<void>((resolve, reject) => {
        syncs.push({ done: resolve, fail: reject });
        syncAsked();
      }),
    written: (events) => written.push(seqs(events)),
    stopped: (why) => stops.push(why),
  });
  const nextWrite = () => new Promise<void>((resolve) => (writeStarted = resolve));
  const nextSync = () => new Promise<void>((resolve) => (syncAsked = resolve));
  return { recorder, writes, syncs, written, stops, nextWrite, nextSync };
}

/** After a stop for `failure`: a later event is neither written nor handed on, and the turn was told once. */
async function expectStoppedFor(
  seen: Pick<ReturnType<typeof recorderWithManualWrites>, "recorder" | "writes" | "written" | "stops">,
  failure: Error,
): Promise<void> {
  seen.recorder.add(event(2));
  await seen.recorder.drain();
  expect(seen.writes).toHaveLength(1);
  expect(seen.written).toEqual([]);
  expect(seen.stops).toEqual([{ error: failure }]);
}

describe("the event recorder", () => {
  it("starts a batch's write once the batch before it has committed, and hands batches on in order once on disk", async () => {
    const { recorder, writes, syncs, written, nextWrite, nextSync } = recorderWithManualWrites();
    let started = nextWrite();
    recorder.add(event(1));
    recorder.add(event(2));
    const firstDrained = recorder.drain();
    await started;
    recorder.add(event(3));
    const allDrained = recorder.drain();
    // The second batch is cut, but its write waits for the first one to commit.
    await Promise.resolve();
    expect(writes.map((w) => w.events)).toEqual([[1, 2]]);
    started = nextWrite();
    let synced = nextSync();
    writes[0]?.finish(true);
    await firstDrained;
    await started;
    // Committed: the next write goes ahead without waiting for the disk, and nothing is handed on yet.
    await synced;
    expect(writes.map((w) => w.events)).toEqual([[1, 2], [3]]);
    expect(written).toEqual([]);
    writes[1]?.finish(true);
    await allDrained;
    expect(written).toEqual([]);
    // The second batch is handed on only after the first, each once the disk has it.
    synced = nextSync();
    syncs[0]?.done();
    await synced;
    expect(written).toEqual([[1, 2]]);
    syncs[1]?.done();
    await recorder.handedOn();
    expect(written).toEqual([[1, 2], [3]]);
  });

  it("hands nothing on and stops when the disk fails, telling the turn the error once", async () => {
    const { recorder, writes, syncs, written, stops, nextWrite, nextSync } = recorderWithManualWrites();
    const started = nextWrite();
    recorder.add(event(1));
    const drained = recorder.drain();
    await started;
    const synced = nextSync();
    writes[0]?.finish(true);
    await drained;
    await synced;
    const failure = new Error("fsync failed");
    syncs[0]?.fail(failure);
    await recorder.handedOn();
    await expectStoppedFor({ recorder, writes, written, stops }, failure);
  });

  it("hands on what was committed before a write the lease refuses", async () => {
    const { recorder, writes, syncs, written, stops, nextWrite, nextSync } = recorderWithManualWrites();
    let started = nextWrite();
    recorder.add(event(1));
    const first = recorder.drain();
    await started;
    started = nextWrite();
    const synced = nextSync();
    writes[0]?.finish(true);
    await first;
    await synced;
    recorder.add(event(2));
    const second = recorder.drain();
    await started;
    writes[1]?.finish(false);
    await second;
    syncs[0]?.done();
    await recorder.handedOn();
    expect(written).toEqual([[1]]);
    expect(stops).toEqual([{ leaseLost: true }]);
  });

  it("stops at a write the lease refuses: nothing after it is written or handed on", async () => {
    const { recorder, writes, written, stops, nextWrite } = recorderWithManualWrites();
    const started = nextWrite();
    recorder.add(event(1));
    const drained = recorder.drain();
    await started;
    recorder.add(event(2));
    const later = recorder.drain();
    writes[0]?.finish(false);
    await drained;
    await later;
    recorder.add(event(3));
    await recorder.drain();
    expect(writes.map((w) => w.events)).toEqual([[1]]);
    expect(written).toEqual([]);
    expect(stops).toEqual([{ leaseLost: true }]);
  });

  it("stops at a write the database fails, telling the turn the error once", async () => {
    const { recorder, writes, written, stops, nextWrite } = recorderWithManualWrites();
    const started = nextWrite();
    recorder.add(event(1));
    const drained = recorder.drain();
    await started;
    const failure = new Error("disk full");
    writes[0]?.fail(failure);
    await drained;
    await expectStoppedFor({ recorder, writes, written, stops }, failure);
  });

  it("gathers the events of one turn of the event loop into one write", async () => {
    const { recorder, writes, nextWrite } = recorderWithManualWrites();
    const started = nextWrite();
    for (let seq = 1; seq <= 5; seq++) recorder.add(event(seq));
    await started;
    expect(writes.map((w) => w.events)).toEqual([[1, 2, 3, 4, 5]]);
    writes[0]?.finish(true);
    await recorder.drain();
  });
});
