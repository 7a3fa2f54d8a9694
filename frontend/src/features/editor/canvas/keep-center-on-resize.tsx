// When the canvas changes size (the run panel opens or closes, the window is resized), the point of
// the workflow that was in the middle stays in the middle, as in Figma or n8n: without this, React
// Flow keeps the top-left corner, and nodes centred in a tall canvas end up below a shorter one.
import { useReactFlow, useStore } from "@xyflow/react";
import { useEffect, useRef } from "react";

export function KeepCenterOnResize() {
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  const flow = useReactFlow();
  const last = useRef<{ width: number; height: number } | null>(null);
  useEffect(() => {
    const before = last.current;
    last.current = { width, height };
    // The first size is the one fitView used; a size of 0 is a canvas not laid out yet.
    if (!before || before.width === 0 || before.height === 0 || width === 0 || height === 0) return;
    const dx = (width - before.width) / 2;
    const dy = (height - before.height) / 2;
    if (dx === 0 && dy === 0) return;
    const { x, y, zoom } = flow.getViewport();
    void flow.setViewport({ x: x + dx, y: y + dy, zoom });
  }, [width, height, flow]);
  return null;
}
