// Asks the layout worker for positions; without workers (or if it fails to start) the layout runs
// here, which is still correct, only on the main thread.
import { computeLayout, type LayoutInput, type LayoutPosition } from "./auto-layout";

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

export function runLayout(input: LayoutInput): Promise<LayoutPosition[]> {
  const w = typeof Worker === "undefined" ? null : layoutWorker();
  if (!w) return Promise.resolve(computeLayout(input));
  const id = ++serial;
  return new Promise((resolve) => {
    const onMessage = (event: MessageEvent<{ id: number; positions?: LayoutPosition[]; error?: string }>) => {
      if (event.data.id !== id) return;
      w.removeEventListener("message", onMessage);
      resolve(event.data.positions ?? computeLayout(input));
    };
    w.addEventListener("message", onMessage);
    w.postMessage({ id, input });
  });
}
