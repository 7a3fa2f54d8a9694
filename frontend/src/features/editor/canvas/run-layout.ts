// Lays a graph out: large graphs in the layout worker (off the main thread), small ones here. The
// layout code (dagre) is loaded only when a layout is asked for, so it does not weigh on opening
// the editor. Without workers (or if one fails to start) everything runs here, only slower.
import type { LayoutInput, LayoutPosition } from "./auto-layout";

let worker: Worker | null | undefined;
let serial = 0;

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
