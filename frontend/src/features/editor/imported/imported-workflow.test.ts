import { describe, expect, it } from "vitest";
import { COMMANDS } from "../document/document.fixtures.js";
import { selectCanRedo, selectCanUndo, selectIsDirty } from "../document/document-selectors.js";
import { createDocumentStore } from "../document/document-store.js";
import type { WorkflowDocument } from "../document/document-types.js";
import {
  contextSchemaText,
  importedNodeCode,
  importedNodeInfo,
  importedOf,
  isConditionalEdge,
  isReadOnlyDocument,
  subgraphGroups,
} from "./imported-workflow";

/** A document as the server makes it from an imported graph: Start, End, Code nodes, a conditional edge. */
function importedDocument(): WorkflowDocument {
  return {
    name: "agent",
    state: [],
    nodes: [
      { id: "start", type: "start", position: { x: 0, y: 0 }, data: {} },
      {
        id: "call_model",
        type: "code",
        position: { x: 200, y: 0 },
        data: {
          label: "call_model",
          language: "python",
          code: "async def call_model(state):\n    return {}\n",
          imported: { node: "call_model", source: { file: "src/agent/graph.py", line: 12 }, subgraph: null },
        },
      },
      {
        id: "research-plan",
        type: "code",
        position: { x: 400, y: 0 },
        data: {
          label: "plan",
          language: "python",
          code: "# library code: langgraph.prebuilt\n",
          imported: { node: "research:plan", source: null, subgraph: "research" },
        },
      },
      { id: "end", type: "end", position: { x: 600, y: 0 }, data: {} },
    ],
    edges: [
      { id: "e1", source: "start", target: "call_model" },
      { id: "e2", source: "call_model", target: "research-plan", conditional: true, label: "tools" },
      { id: "e3", source: "research-plan", target: "end" },
    ],
    imported: {
      job_id: "imp_1",
      graph_id: "agent",
      spec: "./src/agent/graph.py:graph",
      env_names: ["OPENAI_API_KEY"],
      context_schema: { type: "object", properties: { model: { type: "string" } } },
    },
  };
}

describe("recognising an imported workflow", () => {
  it("is read-only when the document has `imported`, editable otherwise", () => {
    const document = importedDocument();
    expect(isReadOnlyDocument(document)).toBe(true);
    expect(importedOf(document)?.graph_id).toBe("agent");
    const { imported: _imported, ...built } = document;
    expect(isReadOnlyDocument(built)).toBe(false);
    expect(importedOf(built)).toBeNull();
  });
});

describe("what the editor shows of imported nodes and edges", () => {
  it("reads the graph's node id, file:line and subgraph, and null where the graph had none", () => {
    const [start, model, plan] = importedDocument().nodes;
    expect(importedNodeInfo(model as WorkflowDocument["nodes"][number])).toEqual({
      node: "call_model",
      location: "src/agent/graph.py:12",
      subgraph: null,
    });
    expect(importedNodeInfo(plan as WorkflowDocument["nodes"][number])).toEqual({
      node: "research:plan",
      location: null,
      subgraph: "research",
    });
    expect(importedNodeInfo(start as WorkflowDocument["nodes"][number])).toBeNull();
    expect(importedNodeInfo({ data: { imported: "not an object" } })).toBeNull();
    expect(importedNodeInfo({ data: { imported: { node: "x", source: { file: "a.py" }, subgraph: "" } } })).toEqual({
      node: "x",
      location: "a.py",
      subgraph: null,
    });
  });

  it("gives the node's source text, empty for a node without code", () => {
    const [start, model] = importedDocument().nodes;
    expect(importedNodeCode(model as WorkflowDocument["nodes"][number])).toContain("async def call_model");
    expect(importedNodeCode(start as WorkflowDocument["nodes"][number])).toBe("");
  });

  it("groups the nodes of each subgraph under its parent node id", () => {
    const document = importedDocument();
    expect(subgraphGroups(document.nodes)).toEqual(new Map([["research", ["research-plan"]]]));
  });

  it("marks only edges with conditional: true as conditional", () => {
    expect(importedDocument().edges.map(isConditionalEdge)).toEqual([false, true, false]);
  });

  it("writes the context schema for the run input's hint, or null without one", () => {
    const document = importedDocument();
    expect(JSON.parse(contextSchemaText(importedOf(document)) ?? "null")).toEqual(document.imported?.context_schema);
    expect(
      contextSchemaText({ ...(document.imported as NonNullable<WorkflowDocument["imported"]>), context_schema: null }),
    ).toBeNull();
    expect(contextSchemaText(null)).toBeNull();
  });
});

describe("an imported workflow in the document store", () => {
  function loadedImported() {
    const store = createDocumentStore();
    const document = importedDocument();
    const loaded = store
      .getState()
      .load({ workflowId: "wf_imp", version: 1, document, readOnly: isReadOnlyDocument(document) });
    return { store, loaded };
  }

  it("loads the server's imported document as it is (conditional edges, data.imported kept)", () => {
    const { store, loaded } = loadedImported();
    expect(loaded).toEqual({ ok: true });
    const shown = store.getState().content.document;
    expect(shown.imported?.spec).toBe("./src/agent/graph.py:graph");
    expect(shown.edges.find((e) => e.id === "e2")).toMatchObject({ conditional: true, label: "tools" });
    expect(store.getState().readOnly).toBe(true);
  });

  it.each(COMMANDS)("refuses %s with EDITOR_READ_ONLY and changes nothing", (_name, command) => {
    const { store } = loadedImported();
    const before = store.getState().content;
    expect(store.getState().dispatch(command)).toEqual({ ok: false, error: { code: "EDITOR_READ_ONLY" } });
    expect(store.getState().content).toBe(before);
    expect(selectIsDirty(store.getState())).toBe(false);
    expect(selectCanUndo(store.getState())).toBe(false);
    expect(selectCanRedo(store.getState())).toBe(false);
  });
});
