// Lights the edges a run took. One style element for all of them: lighting an edge does not touch
// React Flow's edges (no canvas re-render), and the rule follows the edge if the canvas re-draws it.
import { useStore } from "zustand";
import { createStore } from "zustand/vanilla";
import { useOptionalRunStore } from "./run-store";

const NO_RUN = createStore(() => ({ trace: null, revision: 0 }));

export function TakenEdgesStyle() {
  const store = useOptionalRunStore() ?? NO_RUN;
  const css = useStore(store, (s) => {
    const taken = s.trace?.takenEdges;
    if (!taken || taken.size === 0) return "";
    const selectors = [...taken].map((id) => `.react-flow__edge[data-id="${CSS.escape(id)}"] .react-flow__edge-path`);
    return `${selectors.join(",\n")} { stroke: var(--color-emerald-500); stroke-width: 2.5; }`;
  });
  return <style data-testid="taken-edges-style">{css}</style>;
}
