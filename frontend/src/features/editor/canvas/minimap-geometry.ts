// What the canvas's minimap draws, computed once per change of React Flow's nodes rather than once
// per subscriber and store update. React Flow's own <MiniMap> subscribes each of its node
// rectangles to the store (500 selectors on a 500-node workflow, run on every store update:
// every pan frame, selection and edit) and walks every node for the bounds on each update too.
// See docs/decisions/0018-editor-fewer-react-flow-subscribers.md.
import type { InternalNode, Node } from "@xyflow/react";
import { getBoundsOfRects, getNodeDimensions, nodeHasDimensions, type Rect } from "@xyflow/system";

export interface MiniMapRect {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
  selected: boolean;
}

export interface MiniMapNodes {
  rects: MiniMapRect[];
  /** The rectangles' union, or null when there is none. */
  bounds: Rect | null;
}

const NONE: MiniMapNodes = { rects: [], bounds: null };

/** The rectangles of the visible, measured nodes, where React Flow placed them. */
export function miniMapNodes(
  nodes: readonly Node[],
  nodeLookup: ReadonlyMap<string, InternalNode>,
  previous: MiniMapNodes = NONE,
): MiniMapNodes {
  const before = new Map(previous.rects.map((r) => [r.id, r]));
  const rects: MiniMapRect[] = [];
  let x0 = Number.POSITIVE_INFINITY;
  let y0 = Number.POSITIVE_INFINITY;
  let x1 = Number.NEGATIVE_INFINITY;
  let y1 = Number.NEGATIVE_INFINITY;
  for (const node of nodes) {
    const internal = nodeLookup.get(node.id);
    if (!internal || node.hidden || !nodeHasDimensions(node)) continue;
    const { x, y } = internal.internals.positionAbsolute;
    const { width, height } = getNodeDimensions(node);
    const selected = Boolean(node.selected);
    const old = before.get(node.id);
    // An unchanged rectangle keeps its object: its memoised drawing is skipped.
    const same =
      old && old.x === x && old.y === y && old.width === width && old.height === height && old.selected === selected;
    rects.push(same ? old : { id: node.id, x, y, width, height, selected });
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x + width);
    y1 = Math.max(y1, y + height);
  }
  return { rects, bounds: rects.length > 0 ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : null };
}

/**
 * A selector of the minimap's nodes for one store: the work is done when React Flow's `nodes`
 * array changes (an edit, a selection, a measurement, a drag frame), and the same object is
 * returned for every other store update (a pan, a zoom, a connection in progress).
 */
export function miniMapNodesSelector() {
  let seen: readonly Node[] | undefined;
  let last: MiniMapNodes = NONE;
  return (s: { nodes: readonly Node[]; nodeLookup: ReadonlyMap<string, InternalNode> }): MiniMapNodes => {
    if (s.nodes !== seen) {
      seen = s.nodes;
      last = miniMapNodes(s.nodes, s.nodeLookup, last);
    }
    return last;
  };
}

/** The minimap's view box: the nodes and the viewport, scaled to fit `width` × `height` with a margin. */
export function miniMapViewBox(bounds: Rect | null, viewport: Rect, width: number, height: number, offsetScale = 5) {
  const box = bounds ? getBoundsOfRects(bounds, viewport) : viewport;
  const viewScale = Math.max(box.width / width, box.height / height);
  const viewWidth = viewScale * width;
  const viewHeight = viewScale * height;
  const offset = offsetScale * viewScale;
  return {
    x: box.x - (viewWidth - box.width) / 2 - offset,
    y: box.y - (viewHeight - box.height) / 2 - offset,
    width: viewWidth + offset * 2,
    height: viewHeight + offset * 2,
    offset,
    viewScale,
  };
}
