// Watches the resident memory of a sandbox child from the outside. The caps inside the child
// (QuickJS's limit, the WebAssembly memory cap, --max-old-space-size) cover the guest's heap, but
// not memory the host allocates on the guest's behalf outside them: Pyodide keeps its in-memory
// file system (/tmp, …) and to_js() buffers in JavaScript ArrayBuffers, which no V8 heap limit
// counts. Reading /proc works on Linux only; elsewhere the watchdog does nothing and those
// allocations are bounded by the time limit alone.

import { readFile } from "node:fs/promises";

const SAMPLE_EVERY_MS = 100;
const VM_RSS = /^VmRSS:\s+(\d+)\s+kB$/m;

/** Resident set size of a process in bytes, or null when it cannot be read (not Linux, exited). */
export async function residentBytes(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = VM_RSS.exec(status)?.[1];
    return kb === undefined ? null : Number(kb) * 1024;
  } catch {
    return null;
  }
}

/** What a child used when it was first watched (its loaded runtime), kept across its calls. */
export interface ResidentBaseline {
  bytes: number | null;
}

/**
 * Calls onExceeded once the child's resident memory grows more than allowedBytes above what it
 * used when it was first watched (the loaded runtime): when this watch started, or `baseline` as
 * an earlier watch of the same child found it. Returns a function that stops watching.
 */
export function watchMemory(
  pid: number,
  allowedBytes: number,
  onExceeded: () => void,
  baseline: ResidentBaseline = { bytes: null },
): () => void {
  let stopped = false;
  let sampling = false;
  const sample = async () => {
    if (sampling) return;
    sampling = true;
    const rss = await residentBytes(pid);
    sampling = false;
    if (stopped || rss === null) return;
    if (baseline.bytes === null) baseline.bytes = rss;
    else if (rss - baseline.bytes > allowedBytes) {
      stop();
      onExceeded();
    }
  };
  const timer = setInterval(sample, SAMPLE_EVERY_MS);
  timer.unref();
  void sample();
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  return stop;
}
