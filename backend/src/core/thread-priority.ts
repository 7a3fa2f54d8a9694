// Lowers the CPU priority of the calling thread alone. On Linux a thread's nice value is its own,
// and setpriority on a thread's id changes that thread only. The run threads call it as they start:
// when the cores are busy, the thread that answers requests (a hook's 202, a click in the editor)
// goes first, and run work takes what is left. Processes a run thread starts (a sandbox's
// interpreter) inherit the lower priority: they are run work too.
import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

/** The calling thread's id as the kernel knows it; null without /proc (not Linux). */
function kernelThreadId(): number | null {
  try {
    // "<pid>/task/<tid>"
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}

/**
 * Adds `steps` to the calling thread's nice value (at most 19). False where it cannot: elsewhere
 * than Linux, os.setPriority on the process id would lower every thread, so nothing is changed.
 */
export function lowerThisThreadPriority(steps: number): boolean {
  if (steps <= 0) return false;
  const tid = kernelThreadId();
  if (tid === null) return false;
  try {
    setPriority(tid, Math.min(19, getPriority(tid) + steps));
    return true;
  } catch {
    return false;
  }
}
