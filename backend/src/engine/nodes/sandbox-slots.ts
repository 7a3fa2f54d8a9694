// At most a few sandbox children at once: each Python child needs ~100 MB, so a For each over a
// hundred items must queue rather than start a hundred interpreters.
import { availableParallelism } from "node:os";

const LIMIT = Math.max(2, availableParallelism());
let running = 0;
const waiting: (() => void)[] = [];

export async function withSandboxSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= LIMIT) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}
