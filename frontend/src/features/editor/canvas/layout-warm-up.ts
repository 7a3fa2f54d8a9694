// Warms the layout worker up once the editor is idle, when the open workflow is large enough for
// its layout to run there (see run-layout.ts).
import { useEffect } from "react";
import { WORKER_MIN_NODES, warmLayoutWorker } from "./run-layout";

/** Runs `task` when the page is idle (or after a second where idle callbacks do not exist). */
function whenIdle(task: () => void): () => void {
  if (typeof requestIdleCallback === "function") {
    const handle = requestIdleCallback(task, { timeout: 3000 });
    return () => cancelIdleCallback(handle);
  }
  const timer = setTimeout(task, 1000);
  return () => clearTimeout(timer);
}

export function useLayoutWarmUp(nodeCount: number, readOnly: boolean): void {
  const large = nodeCount > WORKER_MIN_NODES && !readOnly;
  useEffect(() => (large ? whenIdle(warmLayoutWorker) : undefined), [large]);
}
