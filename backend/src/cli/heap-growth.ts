// How far V8 lets the heap grow past what its last full collection left alive. V8 chooses up to 4×
// on its own: with about 40 MB alive, the server's resident memory under steady load swung between
// roughly 260 and 380 MB with the garbage of ended runs (decision 0016). A fixed factor keeps it
// flat; a low one costs CPU, since every full collection marks all that is alive while runs keep
// promoting their short-lived objects (at 20 %, 0.3 to 1 ms of marking per 10-node run; decision
// 0030, which settled on 50 %). The value is read by V8 at each full
// collection, so setting it once the process runs takes effect (unlike the young generation's
// size, fixed when the heap is set up). An operator's own --heap-growing-percent wins.
import v8 from "node:v8";

const FLAG = /--heap[-_]growing[-_]percent\b/;

/** Applies STUDIO_HEAP_GROWTH_PERCENT; false when left to V8 (0) or to the operator's Node flag. */
export function applyHeapGrowth(percent: number): boolean {
  if (percent <= 0) return false;
  if ([...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((option) => FLAG.test(option))) return false;
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
  return true;
}
