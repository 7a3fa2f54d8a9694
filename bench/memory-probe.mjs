// Loaded into the studio by bench/memory.mjs (node --expose-gc --import): on SIGUSR2 it forces
// a full garbage collection and writes the heap figures to MEMORY_PROBE_OUT. The benchmark reads
// the resident memory from /proc before it signals, so the forced collection never lowers the
// resident figure it prints; the heap after a collection is what shows a leak. With
// MEMORY_PROBE_SNAPSHOT_DIR set it also writes a heap snapshot there each time, for
// bench/heap-diff.mjs (writing one makes the process's resident memory grow: not for figures).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import v8 from "node:v8";

let snapshots = 0;

process.on("SIGUSR2", () => {
  globalThis.gc?.();
  const usage = process.memoryUsage();
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));
  // Written before the figures, which the benchmark waits for.
  const dir = process.env.MEMORY_PROBE_SNAPSHOT_DIR;
  if (dir) v8.writeHeapSnapshot(join(dir, `probe-${snapshots++}.heapsnapshot`));
  writeFileSync(
    process.env.MEMORY_PROBE_OUT,
    JSON.stringify({ heapUsed: usage.heapUsed, external: usage.external, arrayBuffers: usage.arrayBuffers, spaces }),
  );
});
