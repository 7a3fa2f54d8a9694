// Three kinds of change to React Flow's store updates, applied as the bundle is built (like
// react-flow-removed-nodes.ts). Every update of React Flow's store runs the selector of every
// subscriber (each mounted node wrapper, handle and edge: ~2,300 on a 500-node canvas), so an
// update that changes nothing, or two updates where one would do (or any), cost a full pass each:
// 1. A document change that changes nodes and edges (an undo, a paste, a removal) reached the store
//    as two updates: `<ReactFlow>`'s StoreUpdater calls `setNodes`, then `setEdges`. The store's
//    `setNodes` now takes the edges too and sets both in one update, and StoreUpdater hands them
//    over together when both props changed.
// 2. A click on a node first set `nodesSelectionActive: false` even when it was already false: an
//    update that changed nothing, before the selection's own; a click on the background set it
//    after clearing the selection. Both now set it only when it is true.
// 3. The multi-selection key (Control, Shift, Meta) set `multiSelectionActive` by a store update when
//    pressed and again when released: two full passes around every Ctrl+Z, Ctrl+V or Ctrl+click,
//    the release's often between an undo and its paint. React Flow reads that flag only through
//    `getState()` in its click and drag handlers, never in a subscriber's selector, so it is now
//    written into the current state without an update. The build checks that the flag still appears
//    only where it did (a new reader in a later React Flow fails the build).
// Each edit must be found exactly once where expected, or the build fails, so an upgrade of React
// Flow that changes this code is noticed. See docs/decisions/0018-editor-fewer-react-flow-subscribers.md.
import { patchReactFlow } from "./react-flow-module";

export interface SourceEdit {
  /** A text the module must hold exactly this many times for the edit to stay right (its readers). */
  occurrences?: { text: string; count: number };
  /** What the edit is for, named in the error when it no longer applies. */
  name: string;
  /** A unique line near the edit (the function it belongs to). */
  anchor: string;
  find: string;
  replace: string;
  /** How far after the anchor `find` may start. */
  within: number;
}

export const REACT_FLOW_STORE_EDITS: readonly SourceEdit[] = [
  {
    name: "StoreUpdater hands nodes and edges over together",
    anchor: "function StoreUpdater(props) {",
    find: `            if (fieldName === 'nodes')
                setNodes(fieldValue);
            else if (fieldName === 'edges')
                setEdges(fieldValue);`,
    replace: `            if (fieldName === 'nodes')
                setNodes(fieldValue, props.edges !== undefined && props.edges !== previousFields.current.edges ? props.edges : undefined);
            else if (fieldName === 'edges') {
                if (props.nodes === undefined || props.nodes === previousFields.current.nodes)
                    setEdges(fieldValue);
            }`,
    within: 1200,
  },
  {
    name: "the store's setNodes takes the edges too",
    anchor: "const createStore = (",
    find: `        setNodes: (nodes) => {
            const { nodeLookup, parentLookup, nodeOrigin, nodeExtent, elevateNodesOnSelect, fitViewQueued, zIndexMode, nodesSelectionActive, } = get();`,
    replace: `        setNodes: (nodes, edges) => {
            const { nodeLookup, parentLookup, nodeOrigin, nodeExtent, elevateNodesOnSelect, fitViewQueued, zIndexMode, nodesSelectionActive, } = get();
            const withEdges = edges === undefined ? {} : (updateConnectionLookup(get().connectionLookup, get().edgeLookup, edges), { edges });`,
    within: 2000,
  },
  {
    name: "setNodes sets the edges with the nodes (fit view queued)",
    anchor: "        setNodes: (nodes, edges) => {",
    find: `                set({
                    nodes,
                    nodesInitialized,
                    fitViewQueued: false,`,
    replace: `                set({
                    ...withEdges,
                    nodes,
                    nodesInitialized,
                    fitViewQueued: false,`,
    within: 2000,
  },
  {
    name: "setNodes sets the edges with the nodes",
    anchor: "        setNodes: (nodes, edges) => {",
    find: "                set({ nodes, nodesInitialized, nodesSelectionActive: nextNodesSelectionActive });",
    replace:
      "                set({ ...withEdges, nodes, nodesInitialized, nodesSelectionActive: nextNodesSelectionActive });",
    within: 2500,
  },
  {
    name: "the multi-selection key is noted without a store update",
    anchor: "function useGlobalKeyHandler({ deleteKeyCode, multiSelectionKeyCode, }) {",
    find: "        store.setState({ multiSelectionActive: multiSelectionKeyPressed });",
    replace:
      "        // Read only through getState() by React Flow's handlers: no subscriber to notify.\n        store.getState().multiSelectionActive = multiSelectionKeyPressed;",
    within: 900,
    // The key handler's write, the initial state, and reads through getState() in the node and
    // edge click handlers and the store's selection actions (each destructures, then tests it).
    occurrences: { text: "multiSelectionActive", count: 10 },
  },
  {
    name: "a node click updates the store only when a selection box was active",
    anchor: "function handleNodeClick({ id, store, unselect = false, nodeRef, }) {",
    find: "    store.setState({ nodesSelectionActive: false });",
    replace: "    if (store.getState().nodesSelectionActive)\n        store.setState({ nodesSelectionActive: false });",
    within: 500,
  },
  {
    name: "a background click updates the store only when a selection box was active",
    anchor: "        onPaneClick?.(event);\n        resetSelectedElements();",
    find: "        store.setState({ nodesSelectionActive: false });",
    replace:
      "        if (store.getState().nodesSelectionActive)\n            store.setState({ nodesSelectionActive: false });",
    within: 100,
  },
];

/** `code` with `edit` applied; throws when its text is not found once, near its anchor. */
export function applyEdit(code: string, edit: SourceEdit): string {
  const anchor = code.indexOf(edit.anchor);
  const at = anchor < 0 ? -1 : code.indexOf(edit.find, anchor);
  const occurrences = edit.occurrences ? code.split(edit.occurrences.text).length - 1 : 0;
  if (
    anchor < 0 ||
    code.indexOf(edit.anchor, anchor + 1) >= 0 ||
    at < 0 ||
    at - anchor > edit.within ||
    (edit.occurrences && occurrences !== edit.occurrences.count)
  )
    throw new Error(
      `@xyflow/react changed where "${edit.name}" applies: check React Flow's store updates and update vite-plugins/react-flow-store-updates.ts`,
    );
  return code.slice(0, at) + edit.replace + code.slice(at + edit.find.length);
}

export const patchStoreUpdates = (code: string) => REACT_FLOW_STORE_EDITS.reduce(applyEdit, code);

export const reactFlowStoreUpdates = () => patchReactFlow("superstep:react-flow-store-updates", patchStoreUpdates);
