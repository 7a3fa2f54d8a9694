// The canvas's minimap: React Flow's <MiniMap> (same look, classes, panning and zooming through
// @xyflow/system's XYMinimap) with its nodes drawn from two store subscriptions instead of one per
// node. Each React Flow store update runs every subscriber's selector; the minimap's 500 node
// selectors were the largest group when zoomed in (only the visible nodes are mounted there), and
// they ran on every pan and zoom frame. Here the node rectangles are computed when React Flow's
// nodes change, and a pan only moves the viewport's mask.
import { Panel, type ReactFlowState, useStore, useStoreApi } from "@xyflow/react";
import { type Rect, XYMinimap, type XYMinimapInstance } from "@xyflow/system";
import { memo, useEffect, useRef, useState } from "react";
import { cn } from "@/lib/utils";
import { type MiniMapRect, miniMapNodesSelector, miniMapViewBox } from "./minimap-geometry";

const WIDTH = 200;
const HEIGHT = 150;
const LABEL_ID = "react-flow__minimap-desc";
// Chromium draws crisp rectangles faster; other browsers keep geometric precision (as React Flow).
const SHAPE_RENDERING =
  typeof window === "undefined" || "chrome" in window ? ("crispEdges" as const) : ("geometricPrecision" as const);

const selectView = (s: ReactFlowState) => ({
  viewport: {
    x: -s.transform[0] / s.transform[2],
    y: -s.transform[1] / s.transform[2],
    width: s.width / s.transform[2],
    height: s.height / s.transform[2],
  },
  rfId: s.rfId,
  panZoom: s.panZoom,
  translateExtent: s.translateExtent,
  flowWidth: s.width,
  flowHeight: s.height,
  label: s.ariaLabelConfig["minimap.ariaLabel"],
});
type View = ReturnType<typeof selectView>;
const sameRect = (a: Rect, b: Rect) => a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
const sameView = (a: View, b: View) =>
  sameRect(a.viewport, b.viewport) &&
  a.rfId === b.rfId &&
  a.panZoom === b.panZoom &&
  a.translateExtent === b.translateExtent &&
  a.flowWidth === b.flowWidth &&
  a.flowHeight === b.flowHeight &&
  a.label === b.label;

const MiniMapNode = memo(function MiniMapNode({ x, y, width, height, selected }: MiniMapRect) {
  return (
    <rect
      className={cn("react-flow__minimap-node", selected && "selected")}
      x={x}
      y={y}
      rx={5}
      ry={5}
      width={width}
      height={height}
      shapeRendering={SHAPE_RENDERING}
    />
  );
});

const MiniMapNodes = memo(function MiniMapNodes({ rects }: { rects: readonly MiniMapRect[] }) {
  return rects.map((r) => <MiniMapNode key={r.id} {...r} />);
});

function CanvasMiniMapView({ className }: { className?: string }) {
  const store = useStoreApi();
  const svg = useRef<SVGSVGElement>(null);
  // One selector per minimap (not per module): its memory belongs to this store.
  const [selectNodes] = useState(miniMapNodesSelector);
  const { rects, bounds } = useStore(selectNodes);
  const { viewport, rfId, panZoom, translateExtent, flowWidth, flowHeight, label } = useStore(selectView, sameView);
  const box = miniMapViewBox(bounds, viewport, WIDTH, HEIGHT);
  const viewScale = useRef(0);
  viewScale.current = box.viewScale;
  const minimap = useRef<XYMinimapInstance>(undefined);

  useEffect(() => {
    if (!svg.current || !panZoom) return;
    minimap.current = XYMinimap({
      domNode: svg.current,
      panZoom,
      getTransform: () => store.getState().transform,
      getViewScale: () => viewScale.current,
    });
    return () => minimap.current?.destroy();
  }, [store, panZoom]);

  useEffect(() => {
    minimap.current?.update({
      translateExtent,
      width: flowWidth,
      height: flowHeight,
      pannable: true,
      zoomable: true,
      zoomStep: 1,
    });
  }, [translateExtent, flowWidth, flowHeight]);

  const labelledBy = `${LABEL_ID}-${rfId}`;
  const { x, y, width, height, offset } = box;
  return (
    <Panel position="bottom-right" className={cn("react-flow__minimap", className)} data-testid="rf__minimap">
      <svg
        ref={svg}
        width={WIDTH}
        height={HEIGHT}
        viewBox={`${x} ${y} ${width} ${height}`}
        className="react-flow__minimap-svg"
        role="img"
        aria-labelledby={labelledBy}
      >
        <title id={labelledBy}>{label}</title>
        <MiniMapNodes rects={rects} />
        <path
          className="react-flow__minimap-mask"
          d={`M${x - offset},${y - offset}h${width + offset * 2}v${height + offset * 2}h${-width - offset * 2}z
        M${viewport.x},${viewport.y}h${viewport.width}v${viewport.height}h${-viewport.width}z`}
          fillRule="evenodd"
          pointerEvents="none"
        />
      </svg>
    </Panel>
  );
}

const MiniMapView = memo(CanvasMiniMapView);

// A minimap over a small canvas (the run panel open, a short window) hides the nodes it maps.
const roomy = (s: ReactFlowState) => s.width >= WIDTH * 3 && s.height >= HEIGHT * 3;

/** A pannable, zoomable minimap of the canvas, shown while the canvas has room for it. */
export function CanvasMiniMap({ className }: { className?: string }) {
  return useStore(roomy) ? <MiniMapView className={className} /> : null;
}
