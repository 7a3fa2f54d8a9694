// Loaded into the studio by bench/memory.mjs (node --expose-gc --import): on SIGUSR2 it forces
// a full garbage collection in every thread (the run thread too, through the in-process inspector)
// and writes the heap figures to MEMORY_PROBE_OUT (`heapUsed`: all threads together). The benchmark reads
// the resident memory from /proc before it signals, so the forced collection never lowers the
// resident figure it prints; the heap after a collection is what shows a leak. With
// MEMORY_PROBE_SNAPSHOT_DIR set it also writes a heap snapshot there each time, for
// bench/heap-diff.mjs (writing one makes the process's resident memory grow: not for figures).
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";
import v8 from "node:v8";
import { collectEveryThread } from "./thread-heaps.mjs";

let snapshots = 0;

/** The inspector protocol of this process, for collectEveryThread. */
function inspectorOfThisProcess() {
  const session = new Session();
  session.connect();
  return {
    session,
    send: (method, params = {}) =>
      new Promise((resolve, reject) =>
        session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
      ),
    on: (event, listener) => session.on(event, (message) => listener(message.params)),
  };
}

process.on("SIGUSR2", async () => {
  const cdp = inspectorOfThisProcess();
  const heaps = await collectEveryThread(cdp).finally(() => cdp.session.disconnect());
  const usage = process.memoryUsage();
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));
  // Written before the figures, which the benchmark waits for.
  const dir = process.env.MEMORY_PROBE_SNAPSHOT_DIR;
  if (dir) v8.writeHeapSnapshot(join(dir, `probe-${snapshots++}.heapsnapshot`));
  writeFileSync(
    process.env.MEMORY_PROBE_OUT,
    JSON.stringify({
      heapUsed: heaps.reduce((sum, heap) => sum + heap, 0),
      threads: heaps.length,
      external: usage.external,
      arrayBuffers: usage.arrayBuffers,
      spaces,
    }),
  );
});
