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

function recorderWithManualWrites() {
  const writes: PendingWrite[] = [];
  const written: number[][] = [];
  const stops: EventRecorderStop[] = [];
  let writeStarted: () => void = () => {};
  const recorder = new EventRecorder({
    append: (events) =>
      new Promise<boolean>((resolve, reject) => {
        writes.push({ events: seqs(events), finish: resolve, fail: reject });
        writeStarted();
      }),
    written: (events) => written.push(seqs(events)),
    stopped: (why) => stops.push(why),
  });
  const nextWrite = () => new Promise<void>((resolve) => (writeStarted = resolve));
  return { recorder, writes, written, stops, nextWrite };
}

describe("the event recorder", () => {
  it("starts a batch's write only once the batch before it is on disk, and hands batches on in order", async () => {
    const { recorder, writes, written, nextWrite } = recorderWithManualWrites();
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
    writes[0]?.finish(true);
    await firstDrained;
    await started;
    expect(writes.map((w) => w.events)).toEqual([[1, 2], [3]]);
    expect(written).toEqual([[1, 2]]);
    writes[1]?.finish(true);
    await allDrained;
    expect(written).toEqual([[1, 2], [3]]);
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
    recorder.add(event(2));
    await recorder.drain();
    expect(writes).toHaveLength(1);
    expect(written).toEqual([]);
    expect(stops).toEqual([{ error: failure }]);
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
