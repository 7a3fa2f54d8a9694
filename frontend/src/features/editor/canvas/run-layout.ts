// Lays a graph out: large graphs in the layout worker (off the main thread), small ones here. The
// layout code (dagre) is loaded only when a layout is asked for, or when a large workflow is open
// and the page is idle (`warmLayoutWorker`), so it does not weigh on opening the editor. Without
// workers (or if one fails to start) everything runs here, only slower.
import type { LayoutInput, LayoutPosition } from "./auto-layout";

/** Graphs with more nodes than this are laid out in the worker. */
export const WORKER_MIN_NODES = 50;

let worker: Worker | null | undefined;
let serial = 0;
let warmed = false;

function layoutWorker(): Worker | null {
  if (worker !== undefined) return worker;
  try {
    worker = new Worker(new URL("./auto-layout.worker.ts", import.meta.url), { type: "module" });
  } catch {
    worker = null;
  }
  return worker;
}

async function inline(input: LayoutInput): Promise<LayoutPosition[]> {
  const { computeLayout } = await import("./auto-layout");
  return computeLayout(input);
}

export function runLayout(input: LayoutInput, inWorker: boolean): Promise<LayoutPosition[]> {
  const w = inWorker && typeof Worker !== "undefined" ? layoutWorker() : null;
  if (!w) return inline(input);
  const id = ++serial;
  return new Promise((resolve) => {
    const onMessage = (event: MessageEvent<{ id: number; positions?: LayoutPosition[]; error?: string }>) => {
      if (event.data.id !== id) return;
      w.removeEventListener("message", onMessage);
      if (event.data.positions) resolve(event.data.positions);
      else resolve(inline(input));
    };
    w.addEventListener("message", onMessage);
    w.postMessage({ id, input });
  });
}

/**
 * A layout of a made-up graph as large as those laid out in the worker: it starts the worker,
 * loads and compiles dagre in it and runs its code once, so that the first real layout does not
 * wait for the worker, and finds dagre's code compiled (a first 500-node layout took about 1.2×
 * as long after one warm-up run as a second one, 1.5× without: docs/decisions/0014).
 */
export function warmUpInput(): LayoutInput {
  const count = 200;
  const nodes = Array.from({ length: count }, (_, i) => ({ id: `w${i}`, width: 208, height: 56 }));
  // Each node follows one of the three before it; every fifth one also skips ahead.
  const edges = nodes.slice(1).map((n, i) => ({ source: `w${i - (i % 3)}`, target: n.id }));
  for (let i = 0; i + 4 < count; i += 5) edges.push({ source: `w${i}`, target: `w${i + 4}` });
  return { nodes, edges };
}

/** Starts the layout worker and warms it up, once per page. */
export function warmLayoutWorker(): void {
  if (warmed || typeof Worker === "undefined") return;
  warmed = true;
  void runLayout(warmUpInput(), true);
}
