import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type Edge, type Node, ReactFlowProvider, useStoreApi } from "@xyflow/react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import {
  applyEdit,
  patchStoreUpdates,
  REACT_FLOW_STORE_EDITS,
  reactFlowStoreUpdates,
} from "./react-flow-store-updates";

// The installed React Flow's ES modules (the browser build and the one Node resolves).
const require = createRequire(import.meta.url);
const esm = join(dirname(require.resolve("@xyflow/react/package.json")), "dist", "esm");
const installed = ["index.js", "index.mjs"].map((file) => readFileSync(join(esm, file), "utf8"));

/** React Flow's store as a <ReactFlowProvider> makes it (the tests import React Flow through the build's changes). */
function Probe({ found }: { found: (store: ReturnType<typeof useStoreApi>) => void }) {
  found(useStoreApi());
  return null;
}
function flowStore() {
  let store: ReturnType<typeof useStoreApi> | undefined;
  renderToStaticMarkup(
    <ReactFlowProvider>
      <Probe
        found={(s) => {
          store = s;
        }}
      />
    </ReactFlowProvider>,
  );
  if (!store) throw new Error("no store");
  return store;
}

/** Counts the store's updates: each one runs every subscriber's selector. */
function countUpdates(store: ReturnType<typeof flowStore>) {
  const updates: string[][] = [];
  store.subscribe((next, previous) =>
    updates.push(
      Object.keys(next).filter((k) => next[k as keyof typeof next] !== previous[k as keyof typeof previous]),
    ),
  );
  return updates;
}

const nodes = (ids: string[]): Node[] => ids.map((id, i) => ({ id, position: { x: i * 100, y: 0 }, data: {} }));
const edges = (pairs: [string, string][]): Edge[] =>
  pairs.map(([source, target]) => ({ id: `${source}-${target}`, source, target }));

describe("React Flow's store updates, changed at build time", () => {
  it("sets nodes and edges in one store update, with the edges' connection lookup", () => {
    const store = flowStore();
    const updates = countUpdates(store);
    // The store's setNodes as the build changes it (React Flow's types know one argument).
    const setNodes = store.getState().setNodes as (nodes: Node[], edges?: Edge[]) => void;
    setNodes(
      nodes(["a", "b", "c"]),
      edges([
        ["a", "b"],
        ["b", "c"],
      ]),
    );
    expect(updates).toHaveLength(1);
    expect(updates[0]).toEqual(expect.arrayContaining(["nodes", "edges"]));
    const state = store.getState();
    expect(state.edges.map((e) => e.id)).toEqual(["a-b", "b-c"]);
    // Node b's connections: one in, one out.
    expect(state.connectionLookup.get("b")?.size).toBe(2);
    expect([...state.nodeLookup.keys()]).toEqual(["a", "b", "c"]);

    // Nodes alone, as React Flow itself sets them: the edges stay.
    store.getState().setNodes(nodes(["a", "b", "c", "d"]));
    expect(updates).toHaveLength(2);
    expect(updates[1]).not.toContain("edges");
    expect(store.getState().edges).toBe(state.edges);
    // Edges alone: unchanged.
    store.getState().setEdges(edges([["c", "d"]]));
    expect(updates).toHaveLength(3);
    expect(store.getState().connectionLookup.get("b")).toBeUndefined();
  });

  it("changes the installed React Flow's modules where expected and nowhere else", () => {
    for (const code of installed) {
      const patched = patchStoreUpdates(code);
      for (const edit of REACT_FLOW_STORE_EDITS) {
        expect(patched).toContain(edit.replace);
      }
      // Undoing the edits in reverse order gives back the module.
      const restored = [...REACT_FLOW_STORE_EDITS].reverse().reduce((text, edit) => {
        const at = text.indexOf(edit.replace);
        return text.slice(0, at) + edit.find + text.slice(at + edit.replace.length);
      }, patched);
      expect(restored).toBe(code);
      // The multi-selection key's flag is written without an update.
      const keys = patched.slice(patched.indexOf("function useGlobalKeyHandler("));
      expect(keys.slice(0, keys.indexOf("\n}\n"))).toContain(
        "store.getState().multiSelectionActive = multiSelectionKeyPressed;",
      );
      expect(keys.slice(0, keys.indexOf("\n}\n"))).not.toContain("setState({ multiSelectionActive");
      // The node click's and the background click's updates are conditional; others stay.
      const click = patched.slice(patched.indexOf("function handleNodeClick("));
      expect(click.slice(0, click.indexOf("\n}\n"))).toContain("if (store.getState().nodesSelectionActive)");
      const pane = patched.slice(patched.indexOf("        onPaneClick?.(event);"));
      expect(pane.slice(0, pane.indexOf("    };"))).toContain("if (store.getState().nodesSelectionActive)");
      expect(patched.split("store.setState({ nodesSelectionActive: false });").length).toBe(
        code.split("store.setState({ nodesSelectionActive: false });").length,
      );
    }
  });

  it("fails the build when an edit's text is not found where expected", () => {
    const [code = ""] = installed;
    for (const edit of REACT_FLOW_STORE_EDITS)
      expect(() =>
        patchStoreUpdates(code.split(edit.find).join(edit.find.replace(/[a-z]/, (c) => c.toUpperCase()))),
      ).toThrow(edit.name);
    // A new reader of the multi-selection flag (a subscriber would miss its changes now).
    expect(() => patchStoreUpdates(`${code}\nconst s = (state) => state.multiSelectionActive;`)).toThrow(
      "the multi-selection key is noted without a store update",
    );
    expect(() => applyEdit("export const unrelated = 1;", REACT_FLOW_STORE_EDITS[0] as never)).toThrow(
      /@xyflow\/react changed/,
    );
  });

  it("transforms React Flow's module and nothing else", () => {
    const plugin = reactFlowStoreUpdates();
    const transform = plugin.transform as (code: string, id: string) => { code: string } | null;
    const [code = ""] = installed;
    expect(transform(code, join(esm, "index.mjs"))?.code).toContain("setNodes: (nodes, edges) => {");
    expect(transform(code, "/app/node_modules/other/dist/esm/index.js")).toBeNull();
  });
});
