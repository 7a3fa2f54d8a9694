// A signal owned by one call (a run, an outgoing request) that follows other signals (the
// caller's cancel, a timeout of its own) and lets go of them when the call ends.
//
// Why not AbortSignal.any() or AbortSignal.timeout(): Node keeps such a signal in a process-wide
// set while it has an abort listener and may still abort, so that its sources can reach it.
// LangGraph's Pregel.stream() adds a listener to the signal it is given and never removes it, so
// every run's AbortSignal.any() signal stayed in that set, with LangGraph's controllers, until all
// its sources had been collected and a finalizer had run (two full collections later at best; for
// as long as a source lived, at worst). A plain controller's signal is never kept that way: once
// the call ends and dispose() has removed our listeners from the sources, nothing outside the
// call refers to it, whatever listeners are left on it.
export class LinkedAbort {
  readonly #controller = new AbortController();
  #unlink: (() => void)[] = [];
  #timer: NodeJS.Timeout | undefined;

  /** Aborts when any of `sources` aborts (at once when one already has), with its reason. */
  constructor(sources: readonly (AbortSignal | undefined)[] = []) {
    const present = sources.filter((source): source is AbortSignal => source !== undefined);
    const aborted = present.find((source) => source.aborted);
    if (aborted) {
      this.#controller.abort(aborted.reason);
      return;
    }
    for (const source of present) {
      const follow = () => this.abort(source.reason);
      source.addEventListener("abort", follow, { once: true });
      this.#unlink.push(() => source.removeEventListener("abort", follow));
    }
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Aborts after `ms` with `reason()`, unless disposed first; the timer never keeps the process up. */
  abortAfter(ms: number, reason: () => unknown): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.abort(reason()), ms);
    this.#timer.unref();
  }

  abort(reason?: unknown): void {
    this.#release();
    this.#controller.abort(reason);
  }

  /** The call ended: stops following the sources and clears the timer (the signal stays as it is). */
  dispose(): void {
    this.#release();
  }

  #release(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const unlink of this.#unlink) unlink();
    this.#unlink = [];
  }
}
