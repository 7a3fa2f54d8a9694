// A node's connection points. React Flow's <Handle> subscribes twice to React Flow's store (the
// connection in progress and the handle settings), and every store update runs each subscriber's
// selector: with two or more handles per node, handles were most of the ~3,300 selector calls per
// update on a 500-node canvas (each selection, edit, undo and pan frame). A node's handles are
// drawn as the very element React Flow's <Handle> renders while no connection is in progress (same
// classes and data attributes, so React Flow measures them, edges attach to them and a connection
// dragged from elsewhere ends on them) until the pointer first reaches the node; from then on they
// are React Flow's own, which start connections by drag or click and show their state.
// See docs/decisions/0018-editor-fewer-react-flow-subscribers.md.
import { Handle, type HandleType, type Position, useStoreApi } from "@xyflow/react";
import { cn } from "@/lib/utils";

export interface NodeHandleProps {
  /** React Flow's own handle (the pointer has reached the node) or its still drawing. */
  live: boolean;
  nodeId: string;
  type: HandleType;
  id: string;
  position: Position;
  className: string;
  title: string;
}

/** The classes React Flow's <Handle> has while no connection is in progress (nothing connecting, all ends allowed). */
export function idleHandleClasses(type: HandleType, position: Position, className: string): string {
  return cn(
    "react-flow__handle",
    `react-flow__handle-${position}`,
    "nodrag",
    "nopan",
    className,
    type,
    "connectable",
    "connectablestart",
    "connectableend",
    "connectionindicator",
  );
}

export function NodeHandle({ live, nodeId, type, id, position, className, title }: NodeHandleProps) {
  // Read once, not subscribed: the flow's id does not change while it is shown.
  const rfId = useStoreApi().getState().rfId;
  if (live) return <Handle type={type} id={id} position={position} className={className} title={title} />;
  return (
    <div
      data-handleid={id}
      data-nodeid={nodeId}
      data-handlepos={position}
      data-id={`${rfId}-${nodeId}-${id}-${type}`}
      className={idleHandleClasses(type, position, className)}
      title={title}
    />
  );
}
