// Runs the automatic layout off the main thread, so a large workflow does not freeze the page.
import { computeLayout, type LayoutInput } from "./auto-layout";

self.onmessage = (event: MessageEvent<{ id: number; input: LayoutInput }>) => {
  const { id, input } = event.data;
  try {
    self.postMessage({ id, positions: computeLayout(input) });
  } catch (error) {
    self.postMessage({ id, error: String(error) });
  }
};
