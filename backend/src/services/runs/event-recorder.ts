// Records one turn's events in order without making the engine wait for the disk: the events a run
// emits in one turn of the event loop are appended together (one fenced write), each write starts
// once the one before it has committed, and each event is handed on (published) only once it is
// on disk, in seq order. Waiting for the disk is not on the writes' path: a run's last events and
// its ending go to disk in one sync instead of one after the other. A write the lease refuses or
// the database fails stops the recorder: nothing after it is written, and the turn is told why.
import type { StudioEvent } from "../../engine/runtime/events.js";

export type EventRecorderStop = { leaseLost: true } | { error: unknown };

export class EventRecorder {
  readonly #append: (events: StudioEvent[]) => Promise<boolean>;
  readonly #onDisk: () => Promise<void>;
  readonly #written: (events: StudioEvent[]) => void;
  readonly #stopped: (why: EventRecorderStop) => void;
  #buffer: StudioEvent[] = [];
  #scheduled = false;
  #chain: Promise<void> = Promise.resolve();
  #handingOn: Promise<void> = Promise.resolve();
  #stop: EventRecorderStop | null = null;

  constructor(deps: {
    /** Appends the events in one write, answered once committed; false when the run's lease is gone (nothing written). */
    append(events: StudioEvent[]): Promise<boolean>;
    /** Resolves once everything committed so far is on disk (rejects when the disk failed). */
    onDisk(): Promise<void>;
    /** Events now on disk, in order. */
    written(events: StudioEvent[]): void;
    /** Called once, when a write was refused or failed, or the disk failed. */
    stopped(why: EventRecorderStop): void;
  }) {
    this.#append = deps.append;
    this.#onDisk = deps.onDisk;
    this.#written = deps.written;
    this.#stopped = deps.stopped;
  }

  add(event: StudioEvent): void {
    if (this.#stop) return;
    this.#buffer.push(event);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.#flush());
  }

  /** Writes what is buffered, and resolves once every event added so far is committed (or the recorder stopped). */
  async drain(): Promise<void> {
    this.#flush();
    await this.#chain;
  }

  /** Resolves once every event committed so far has been handed on (or will not be: the disk failed). */
  async handedOn(): Promise<void> {
    await this.#chain;
    await this.#handingOn;
  }

  #halt(why: EventRecorderStop): void {
    if (this.#stop) return;
    this.#stop = why;
    this.#buffer = [];
    this.#stopped(why);
  }

  #flush(): void {
    this.#scheduled = false;
    if (this.#stop || this.#buffer.length === 0) return;
    const events = this.#buffer;
    this.#buffer = [];
    // One write at a time, each after the one before it has committed: with a pool of connections,
    // a later batch committed before an earlier one would leave a gap in seq if the worker died
    // between them (a takeover numbers on from the highest seq on disk).
    this.#chain = this.#chain.then(async () => {
      if (this.#stop) return;
      const stop = await this.#append(events).then(
        (kept) => (kept ? null : ({ leaseLost: true } as const)),
        (error: unknown) => ({ error }),
      );
      if (this.#stop) return;
      if (stop) {
        this.#halt(stop);
        return;
      }
      // Committed: handed on once on disk, after the batches before it. A write refused later does
      // not take back what was committed before it.
      this.#handingOn = this.#handingOn.then(async () => {
        try {
          await this.#onDisk();
        } catch (error) {
          this.#halt({ error });
          return;
        }
        this.#written(events);
      });
    });
  }
}
