import { Handle, type NodeProps, Position, ReactFlow } from "@xyflow/react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { NodeHandle } from "./canvas-handles";

const CLASS = "!size-3 !border-2";

// Each test node draws one handle: React Flow's own, or the canvas's still drawing of it.
function ReactFlowHandleNode({ data }: NodeProps) {
  const { type, position } = data as { type: "source" | "target"; position: Position };
  return <Handle type={type} id="h1" position={position} className={CLASS} title="A handle" />;
}
function StillHandleNode({ id, data }: NodeProps) {
  const { type, position } = data as { type: "source" | "target"; position: Position };
  return (
    <NodeHandle live={false} nodeId={id} type={type} id="h1" position={position} className={CLASS} title="A handle" />
  );
}
function LiveHandleNode({ id, data }: NodeProps) {
  const { type, position } = data as { type: "source" | "target"; position: Position };
  return <NodeHandle live nodeId={id} type={type} id="h1" position={position} className={CLASS} title="A handle" />;
}
const NODE_TYPES = { flow: ReactFlowHandleNode, still: StillHandleNode, live: LiveHandleNode };

/** The handle element a node of `kind` draws inside React Flow (rendered on the server: no effects run). */
function handleMarkup(kind: keyof typeof NODE_TYPES, type: "source" | "target", position: Position) {
  const html = renderToStaticMarkup(
    <ReactFlow
      width={800}
      height={600}
      nodes={[{ id: "n1", type: kind, position: { x: 0, y: 0 }, width: 200, height: 50, data: { type, position } }]}
      edges={[]}
      nodeTypes={NODE_TYPES}
    />,
  );
  const element = /<div[^>]*react-flow__handle[^>]*><\/div>/.exec(html)?.[0];
  if (!element) throw new Error(`no handle in ${html}`);
  return element;
}

describe("a node's handles on the canvas", () => {
  for (const [type, position] of [
    ["source", Position.Right],
    ["target", Position.Left],
  ] as const) {
    it(`are drawn, until the pointer reaches the node, as the very element React Flow's ${type} handle is`, () => {
      const flow = handleMarkup("flow", type, position);
      expect(flow).toContain(`data-nodeid="n1"`);
      expect(flow).toContain(`class="react-flow__handle react-flow__handle-${position} `);
      const attributes = (html: string) => new Set(html.slice(5, -7).match(/[\w-]+="[^"]*"/g));
      const classes = (html: string) => new Set(/class="([^"]*)"/.exec(html)?.[1]?.split(" "));
      expect(attributes(handleMarkup("still", type, position))).toEqual(attributes(flow));
      expect(classes(handleMarkup("still", type, position))).toEqual(classes(flow));
      // Live, it is React Flow's own.
      expect(handleMarkup("live", type, position)).toBe(flow);
    });
  }
});
