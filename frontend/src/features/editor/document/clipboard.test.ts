import { describe, expect, it } from "vitest";
import { copySelection, MAX_CLIPBOARD_CHARS, PASTE_OFFSET } from "./commands/clipboard.js";
import { contentText, loadedStore, sampleDocument } from "./document.fixtures.js";
import type { WorkflowDocument } from "./document-types.js";

/** Another workflow, already holding ids the pasted nodes would get, and a field of the same name. */
function otherDocument(): WorkflowDocument {
  return {
    name: "Other",
    state: [{ name: "answer", type: "object", description: "kept as it is" }],
    nodes: [
      { id: "llm_1", type: "llm", position: { x: 0, y: 0 }, data: { model: "m", prompt: "p", output_field: "answer" } },
      { id: "condition_1", type: "condition", position: { x: 0, y: 0 }, data: { rules: [], default_label: "x" } },
    ],
    edges: [{ id: "edge_1", source: "llm_1", target: "condition_1" }],
  };
}

describe("copy and paste", () => {
  it("pastes into another workflow with new unique ids, inner edges, references and the fields they use", () => {
    const source = loadedStore();
    const text = copySelection(source.getState().content, ["draft", "check", "each"]);
    const target = loadedStore(otherDocument());
    const result = target.getState().dispatch({ type: "paste", text });
    expect(result).toEqual({ ok: true, changed: true, created: ["llm_2", "condition_2", "for_each_1"] });
    const document = target.getState().content.document;
    const ids = document.nodes.map((n) => n.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Edges between pasted nodes are kept (draft → check, check → each "high"); edges to nodes
    // that were not copied (start, end, summarise) are dropped.
    expect(document.edges).toEqual([
      { id: "edge_1", source: "llm_1", target: "condition_1" },
      { id: "edge_2", source: "llm_2", target: "condition_2" },
      { id: "edge_3", source: "condition_2", target: "for_each_1", label: "high" },
    ]);
    const pasted = document.nodes.find((n) => n.id === "llm_2")!;
    const original = sampleDocument().nodes[1]!;
    expect(pasted.data).toEqual(original.data);
    expect(pasted.position).toEqual({
      x: original.position.x + PASTE_OFFSET.x,
      y: original.position.y + PASTE_OFFSET.y,
    });
    // The fields the pasted nodes use are declared; one the target has already is left alone.
    expect(document.state).toEqual([
      { name: "answer", type: "object", description: "kept as it is" },
      { name: "question", type: "string" },
      { name: "score", type: "object" },
      { name: "items", type: "list", reducer: "append", default: [] },
      { name: "summaries", type: "list" },
    ]);
    expect(target.getState().history.past.map((e) => [e.labelKey, e.params])).toEqual([
      ["editor.history.paste", { count: 3, nodes: 3, notes: 0, fields: 4 }],
    ]);
  });

  it("pastes twice with different ids, at the place asked for, and undoes in one step", () => {
    const store = loadedStore();
    const { content } = store.getState();
    const text = copySelection(content, ["draft", "check"]);
    const before = contentText(store);
    store.getState().dispatch({ type: "paste", text });
    store.getState().dispatch({ type: "paste", text, at: { x: 1000, y: 500 } });
    const { nodes, edges } = store.getState().content.document;
    expect(nodes.map((n) => n.id)).toEqual([
      "start",
      "draft",
      "check",
      "each",
      "summarise",
      "end",
      "llm_1",
      "condition_1",
      "llm_2",
      "condition_2",
    ]);
    expect(nodes.slice(-2).map((n) => n.position)).toEqual([
      { x: 1000, y: 500 },
      { x: 1200, y: 500 },
    ]);
    expect(edges.slice(-2)).toEqual([
      { id: "edge_1", source: "llm_1", target: "condition_1" },
      { id: "edge_2", source: "llm_2", target: "condition_2" },
    ]);
    store.getState().undo();
    store.getState().undo();
    expect(contentText(store)).toBe(before);
  });

  it("pastes notes with the nodes, and a whole workflow file's nodes", () => {
    const store = loadedStore();
    store.getState().dispatch({ type: "add-note", note: { position: { x: 10, y: 10 }, text: "Lưu ý" } });
    const text = copySelection(store.getState().content, ["end"], ["note_1"]);
    expect(store.getState().dispatch({ type: "paste", text })).toMatchObject({
      ok: true,
      created: ["end_1", "note_2"],
    });
    const other = loadedStore(otherDocument());
    const file = JSON.stringify(sampleDocument());
    const result = other.getState().dispatch({ type: "paste", text: file });
    expect(result).toMatchObject({
      ok: true,
      created: ["start", "llm_2", "condition_2", "for_each_1", "llm_3", "end"],
    });
    expect(other.getState().content.document.edges).toHaveLength(8);
  });

  it("duplicates the selection beside it", () => {
    const store = loadedStore();
    expect(store.getState().dispatch({ type: "duplicate", nodeIds: ["each", "summarise"] })).toEqual({
      ok: true,
      changed: true,
      created: ["for_each_1", "llm_1"],
    });
    expect(store.getState().content.document.edges.at(-1)).toEqual({
      id: "edge_1",
      source: "for_each_1",
      target: "llm_1",
      label: "item",
    });
    expect(store.getState().dispatch({ type: "duplicate", nodeIds: [] })).toEqual({
      ok: false,
      error: { code: "EDITOR_NOTHING_SELECTED" },
    });
    expect(store.getState().dispatch({ type: "duplicate", nodeIds: ["ghost"] })).toEqual({
      ok: false,
      error: { code: "EDITOR_NODE_NOT_FOUND", params: { id: "ghost" } },
    });
  });

  it.each([
    ["empty text", "   ", { code: "EDITOR_CLIPBOARD_EMPTY" }],
    ["plain text", "Hello, world", { code: "EDITOR_CLIPBOARD_NOT_JSON" }],
    ["half a JSON object", '{"nodes": [', { code: "EDITOR_CLIPBOARD_NOT_JSON" }],
    ["JSON that is not a workflow", '{"hello": "world"}', { code: "EDITOR_CLIPBOARD_NOT_WORKFLOW" }],
    ["a JSON list", "[1, 2, 3]", { code: "EDITOR_CLIPBOARD_NOT_WORKFLOW" }],
    ["JSON null", "null", { code: "EDITOR_CLIPBOARD_NOT_WORKFLOW" }],
    ["nodes that are not a list", '{"nodes": {"a": 1}}', { code: "EDITOR_CLIPBOARD_NOT_WORKFLOW" }],
    [
      "a node of a type that does not exist",
      JSON.stringify({ nodes: [{ id: "w", type: "webhook", position: { x: 0, y: 0 }, data: {} }] }),
      { code: "EDITOR_NODE_TYPE_UNKNOWN", params: { type: "webhook" } },
    ],
    [
      "a node with a bad id",
      JSON.stringify({ nodes: [{ id: "has space", type: "join", position: { x: 0, y: 0 }, data: {} }] }),
      { code: "EDITOR_CLIPBOARD_INVALID", params: { path: "nodes.0.id", detail: expect.any(String) } },
    ],
    [
      "an edge without a target",
      JSON.stringify({ nodes: [], edges: [{ id: "e", source: "a" }] }),
      { code: "EDITOR_CLIPBOARD_INVALID", params: { path: "edges.0.target", detail: expect.any(String) } },
    ],
    ["a list of nothing", '{"nodes": []}', { code: "EDITOR_NOTHING_SELECTED" }],
    [
      "more nodes than a workflow may hold",
      JSON.stringify({
        nodes: Array.from({ length: 2001 }, (_, i) => ({
          id: `n${i}`,
          type: "join",
          position: { x: 0, y: 0 },
          data: {},
        })),
      }),
      { code: "EDITOR_TOO_MANY_NODES", params: { max: 2000 } },
    ],
    [
      "text over the size limit",
      `{"nodes": [], "x": "${"a".repeat(MAX_CLIPBOARD_CHARS)}"}`,
      { code: "EDITOR_DOCUMENT_TOO_LARGE", params: { max: MAX_CLIPBOARD_CHARS } },
    ],
  ])("refuses %s with a code, changing nothing", (_name, text, error) => {
    const store = loadedStore();
    const before = contentText(store);
    expect(store.getState().dispatch({ type: "paste", text })).toEqual({ ok: false, error });
    expect(contentText(store)).toBe(before);
    expect(store.getState().history.past).toHaveLength(0);
  });

  it("refuses a paste that would take the workflow past its node limit", () => {
    const many = {
      nodes: Array.from({ length: 1999 }, (_, i) => ({
        id: `n${i}`,
        type: "join",
        position: { x: i, y: 0 },
        data: {},
      })),
    };
    const store = loadedStore();
    expect(store.getState().dispatch({ type: "paste", text: JSON.stringify(many) })).toEqual({
      ok: false,
      error: { code: "EDITOR_TOO_MANY_NODES", params: { max: 2000 } },
    });
  });
});
