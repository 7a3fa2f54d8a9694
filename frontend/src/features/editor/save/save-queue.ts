// One save at a time: asking to save while a save is on its way queues exactly one more, which
// runs when the current one ends and sends the document as it is then. Many asks while busy still
// make one follow-up, so Ctrl+S held down never doubles a version or races two If-Match headers.

export interface SaveQueue {
  /** Starts a save now, or queues one after the running save; resolves when that save has ended. */
  request(): Promise<void>;
  /** Whether a save is running. */
  busy(): boolean;
}

export function createSaveQueue(run: () => Promise<void>): SaveQueue {
  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;

  const start = (): Promise<void> => {
    // A failed save ends the turn like a finished one; the caller shows the failure.
    const current = run().catch(() => undefined);
    running = current.then(() => {
      running = null;
    });
    return running;
  };

  return {
    request() {
      if (!running) return start();
      queued ??= running.then(() => {
        queued = null;
        return start();
      });
      return queued;
    },
    busy: () => running !== null,
  };
}
