// The in-process queue of the embedded mode: run ids in, handled by up to `concurrency` workers at
// once. A run id queued twice is handled once at a time; the lease decides who really runs it.
export type JobHandler = (runId: string) => Promise<void>;

export class EmbeddedQueue {
  readonly #pending: string[] = [];
  readonly #active = new Set<string>();
  readonly #concurrency: number;
  #handler: JobHandler | null = null;
  #idle: (() => void)[] = [];
  #stopped = false;

  constructor(concurrency: number) {
    this.#concurrency = concurrency;
  }

  start(handler: JobHandler): void {
    this.#handler = handler;
    this.#pump();
  }

  enqueue(runId: string): void {
    if (this.#stopped) return;
    if (!this.#pending.includes(runId)) this.#pending.push(runId);
    this.#pump();
  }

  /** Resolves when nothing is queued or running (tests and shutdown). */
  idle(): Promise<void> {
    if (this.#pending.length === 0 && this.#active.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  stop(): void {
    this.#stopped = true;
    this.#pending.length = 0;
  }

  #pump(): void {
    const handler = this.#handler;
    if (!handler) return;
    while (this.#active.size < this.#concurrency) {
      const index = this.#pending.findIndex((id) => !this.#active.has(id));
      if (index < 0) break;
      const [runId] = this.#pending.splice(index, 1) as [string];
      this.#active.add(runId);
      void handler(runId)
        .catch(() => {})
        .finally(() => {
          this.#active.delete(runId);
          this.#pump();
          if (this.#pending.length === 0 && this.#active.size === 0)
            for (const resolve of this.#idle.splice(0)) resolve();
        });
    }
  }
}
