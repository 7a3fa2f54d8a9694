// A one-line change to React Flow, applied as the bundle is built: its node wrapper's store
// selector reads `node.internals` of a node that may just have been removed. Every wrapper still
// mounted when nodes leave the store throws a TypeError there once per store update, until React
// unmounts it (React catches it and re-renders); on an undo of a 100-node paste that was 200
// exceptions, a third of the undo's time. Reading `node?.internals` makes the selector return
// "no node" instead, which React handles the same way (the wrapper is unmounted by its parent in
// the same render). The build fails if the line is not found, so an upgrade of React Flow that
// changes it is noticed. See docs/decisions/0014-editor-undo-and-layout-speed.md.
import { patchReactFlow } from "./react-flow-module";

/** The selector's line as @xyflow/react 12 ships it, and what it becomes. */
export const REMOVED_NODE_READ = {
  find: "internals: node.internals,",
  replace: "internals: node?.internals,",
} as const;

/** React Flow's module with the node wrapper's selector tolerant of a removed node. */
export function patchNodeWrapper(code: string): string {
  const at = code.indexOf(`const node = s.nodeLookup.get(id);`);
  const line = at < 0 ? -1 : code.indexOf(REMOVED_NODE_READ.find, at);
  if (line < 0 || line - at > 200 || code.indexOf(REMOVED_NODE_READ.find, line + 1) >= 0)
    throw new Error(
      "@xyflow/react's node wrapper no longer reads `node.internals` as expected: check whether it still throws for removed nodes and update vite-plugins/react-flow-removed-nodes.ts",
    );
  return code.slice(0, line) + REMOVED_NODE_READ.replace + code.slice(line + REMOVED_NODE_READ.find.length);
}

export const reactFlowRemovedNodes = () => patchReactFlow("superstep:react-flow-removed-nodes", patchNodeWrapper);
