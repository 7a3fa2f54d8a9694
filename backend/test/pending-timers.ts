// Counting what a piece of work leaves behind in the process: timers still pending once it has
// ended, seen through async hooks (never through time or bytes). Shared by the engine's and the
// API's tests, so it imports nothing of the app.
import { createHook } from "node:async_hooks";

/** Timers of at least `minMs` created while `work` runs and still pending once it has ended. */
export async function timersLeftBy(minMs: number, work: () => Promise<void>): Promise<number> {
  const pending = new Set<number>();
  const hook = createHook({
    init(asyncId, type, _trigger, resource) {
      if (type === "Timeout" && ((resource as { _idleTimeout?: number })._idleTimeout ?? 0) >= minMs)
        pending.add(asyncId);
    },
    destroy(asyncId) {
      pending.delete(asyncId);
    },
  });
  hook.enable();
  try {
    await work();
    // Destroy hooks of timers cleared during the work are emitted on a later turn.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    hook.disable();
  }
  return pending.size;
}
