// Bad input never throws: each edit is refused with a code the UI translates, or it works.
import { describe, expect, it } from "vitest";
import { copySelection } from "./commands/clipboard.js";
import type { Command } from "./commands/command-types.js";
import { contentText, loadedStore, sampleDocument } from "./document.fixtures.js";
import { documentText, parseDocumentText } from "./document-json.js";
import type { WorkflowDocument } from "./document-types.js";

const LONG = "x".repeat(10_000);

describe("refused edits", () => {
  it.each<[string, Command, unknown]>([
    [
      "a 10,000-character workflow name",
      { type: "update-workflow", name: LONG },
      { code: "EDITOR_NAME_INVALID", params: { max: 200 } },
    ],
    [
      "an empty workflow name",
      { type: "update-workflow", name: "   " },
      { code: "EDITOR_NAME_INVALID", params: { max: 200 } },
    ],
    [
      "a 10,000-character node label",
      { type: "rename-node", nodeId: "draft", label: LONG },
      { code: "EDITOR_LABEL_INVALID", params: { max: 100 } },
    ],
    [
      "a 10,000-character edge label",
      { type: "connect", source: "draft", target: "end", label: LONG },
      { code: "EDITOR_LABEL_INVALID", params: { max: 100 } },
    ],
    [
      "a 10,000-character state field name",
      { type: "add-state-field", field: { name: LONG, type: "string" } },
      { code: "EDITOR_STATE_FIELD_NAME_INVALID", params: { name: "x".repeat(100) } },
    ],
    [
      "a field name with Vietnamese diacritics",
      { type: "add-state-field", field: { name: "câu_hỏi", type: "string" } },
      { code: "EDITOR_STATE_FIELD_NAME_INVALID", params: { name: "câu_hỏi" } },
    ],
    [
      "a field of a type that does not exist",
      { type: "add-state-field", field: { name: "when", type: "date" as "string" } },
      { code: "EDITOR_STATE_FIELD_INVALID", params: { detail: expect.stringContaining("type") } },
    ],
    [
      "a 30,000-character note",
      { type: "add-note", note: { position: { x: 0, y: 0 }, text: "n".repeat(30_000) } },
      { code: "EDITOR_NOTE_INVALID", params: { max: 20_000 } },
    ],
    [
      "a node of a type that does not exist",
      { type: "add-node", node: { type: "webhook", position: { x: 0, y: 0 } } },
      { code: "EDITOR_NODE_TYPE_UNKNOWN", params: { type: "webhook" } },
    ],
    [
      "a node type named after an object property",
      { type: "add-node", node: { type: "toString", position: { x: 0, y: 0 } } },
      { code: "EDITOR_NODE_TYPE_UNKNOWN", params: { type: "toString" } },
    ],
    [
      "a node id that is taken",
      { type: "add-node", node: { type: "join", id: "draft", position: { x: 0, y: 0 } } },
      { code: "EDITOR_ID_TAKEN", params: { id: "draft" } },
    ],
    [
      "a node id with spaces and emoji",
      { type: "add-node", node: { type: "join", id: "nút 🚀", position: { x: 0, y: 0 } } },
      { code: "EDITOR_ID_INVALID", params: { id: "nút 🚀" } },
    ],
    [
      "a node id the backend keeps for itself",
      { type: "add-node", node: { type: "join", id: "__start__", position: { x: 0, y: 0 } } },
      { code: "EDITOR_ID_INVALID", params: { id: "__start__" } },
    ],
    [
      "a position that is not a number",
      { type: "add-node", node: { type: "join", position: { x: Number.NaN, y: 0 } } },
      { code: "EDITOR_POSITION_INVALID" },
    ],
    [
      "moving a node that does not exist",
      { type: "move-nodes", positions: [{ id: "ghost", x: 0, y: 0 }] },
      { code: "EDITOR_NODE_NOT_FOUND", params: { id: "ghost" } },
    ],
    [
      "connecting a node that does not exist",
      { type: "connect", source: "ghost", target: "end" },
      { code: "EDITOR_NODE_NOT_FOUND", params: { id: "ghost" } },
    ],
    ["an edge into Start", { type: "connect", source: "draft", target: "start" }, { code: "EDITOR_EDGE_INTO_START" }],
    ["an edge out of End", { type: "connect", source: "end", target: "draft" }, { code: "EDITOR_EDGE_OUT_OF_END" }],
    ["the same edge twice", { type: "connect", source: "start", target: "draft" }, { code: "EDITOR_EDGE_EXISTS" }],
    ["removing nothing", { type: "remove" }, { code: "EDITOR_NOTHING_SELECTED" }],
    [
      "removing an edge that does not exist",
      { type: "remove", edgeIds: ["ghost"] },
      { code: "EDITOR_EDGE_NOT_FOUND", params: { id: "ghost" } },
    ],
    [
      "a setting that is a function",
      { type: "update-node-data", nodeId: "draft", path: ["prompt"], value: () => 1 },
      { code: "EDITOR_VALUE_NOT_JSON" },
    ],
    [
      "a setting that is NaN",
      { type: "update-node-data", nodeId: "draft", path: ["temperature"], value: Number.NaN },
      { code: "EDITOR_VALUE_NOT_JSON" },
    ],
    [
      "a setting that is a date",
      { type: "update-node-data", nodeId: "draft", path: ["when"], value: new Date(0) },
      { code: "EDITOR_VALUE_NOT_JSON" },
    ],
    [
      "a setting nested 100 levels deep",
      { type: "update-node-data", nodeId: "draft", path: ["json_schema"], value: nested(100) },
      { code: "EDITOR_DATA_TOO_DEEP", params: { max: 64 } },
    ],
    [
      "a setting path 70 levels deep",
      { type: "update-node-data", nodeId: "draft", path: Array.from({ length: 70 }, () => "a"), value: 1 },
      { code: "EDITOR_DATA_TOO_DEEP", params: { max: 64 } },
    ],
    [
      "a setting path through text",
      { type: "update-node-data", nodeId: "draft", path: ["prompt", "inner"], value: 1 },
      { code: "EDITOR_SETTING_PATH_INVALID", params: { path: "prompt" } },
    ],
    [
      "a setting path through __proto__",
      { type: "update-node-data", nodeId: "draft", path: ["__proto__", "polluted"], value: 1 },
      { code: "EDITOR_SETTING_PATH_INVALID", params: { path: "__proto__" } },
    ],
    [
      "a list position past the end",
      { type: "update-node-data", nodeId: "check", path: ["rules", 5], value: {} },
      { code: "EDITOR_SETTING_PATH_INVALID", params: { path: "rules.5" } },
    ],
    [
      "a whole data value that is not an object",
      { type: "update-node-data", nodeId: "draft", path: [], value: [1, 2] },
      { code: "EDITOR_VALUE_NOT_JSON" },
    ],
    [
      "a replaced document that is not a workflow",
      { type: "replace-document", document: { name: "x", nodes: [{ id: "a", type: "webhook" }] }, reason: "import" },
      { code: "EDITOR_DOCUMENT_INVALID", params: { path: "nodes.0.type", detail: expect.any(String) } },
    ],
    ["a command that does not exist", { type: "explode" } as unknown as Command, { code: "EDITOR_COMMAND_UNKNOWN" }],
    ["no command at all", null as unknown as Command, { code: "EDITOR_COMMAND_UNKNOWN" }],
  ])("refuses %s with a code, changing nothing", (_name, command, error) => {
    const store = loadedStore();
    const before = contentText(store);
    expect(store.getState().dispatch(command)).toEqual({ ok: false, error });
    expect(contentText(store)).toBe(before);
    expect(store.getState().history.past).toHaveLength(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe("text in any language", () => {
  it("keeps emoji and Vietnamese diacritics in names, settings, labels and notes through edits, JSON and paste", () => {
    const store = loadedStore();
    const commands: Command[] = [
      {
        type: "update-workflow",
        name: "Quy trình xử lý đơn hàng 🚀",
        description: "Tự động trả lời khách — nhanh & chính xác ✨",
      },
      { type: "rename-node", nodeId: "draft", label: "Soạn câu trả lời ✍️" },
      {
        type: "update-node-data",
        nodeId: "draft",
        path: ["prompt"],
        value: "Xin chào {{state.question}} 👋 — ắ ằ ẳ ẵ ặ ơ ư đ",
      },
      { type: "set-edge-label", edgeId: "e4", label: "Thấp 📉" },
      { type: "add-note", note: { position: { x: 0, y: 0 }, text: "Nhớ kiểm tra lại 🧐" } },
    ];
    for (const command of commands)
      expect(store.getState().dispatch(command)).toMatchObject({ ok: true, changed: true });
    const { document } = store.getState().content;
    expect(document.name).toBe("Quy trình xử lý đơn hàng 🚀");
    expect(parseDocumentText(documentText(document))).toEqual({ ok: true, document });
    const other = loadedStore();
    other.getState().dispatch({ type: "paste", text: copySelection(store.getState().content, ["draft"], ["note_1"]) });
    const pasted = other.getState().content;
    expect(pasted.document.nodes.at(-1)?.data).toMatchObject({
      label: "Soạn câu trả lời ✍️",
      prompt: "Xin chào {{state.question}} 👋 — ắ ằ ẳ ẵ ặ ơ ư đ",
    });
    expect(pasted.notes[0]?.text).toBe("Nhớ kiểm tra lại 🧐");
  });

  it("takes labels of exactly the limit, counted as the backend counts them", () => {
    const store = loadedStore();
    const label = "🚀".repeat(50); // 100 UTF-16 units, as zod's max(100) counts
    expect(store.getState().dispatch({ type: "rename-node", nodeId: "draft", label }).ok).toBe(true);
    expect(store.getState().dispatch({ type: "rename-node", nodeId: "draft", label: `${label}a` }).ok).toBe(false);
  });
});

describe("a 5 MB document", () => {
  function bigDocument(): WorkflowDocument {
    const document = sampleDocument();
    document.nodes = document.nodes.slice(0, 1);
    document.edges = [];
    for (let i = 0; i < 990; i++) {
      document.nodes.push({
        id: `n${i}`,
        type: "llm",
        position: { x: i * 10, y: 0 },
        data: { model: "m", prompt: `Bước ${i} 🚀 {{state.question}} `.repeat(150), output_field: "answer" },
      });
    }
    return document;
  }

  it("parses, loads, edits, renames a field everywhere, and undoes byte for byte", () => {
    const text = documentText(bigDocument());
    expect(new TextEncoder().encode(text).length).toBeGreaterThan(5_000_000);
    const parsed = parseDocumentText(text);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const store = loadedStore(parsed.document);
    const before = contentText(store);
    expect(store.getState().dispatch({ type: "rename-state-field", from: "question", to: "query" }).ok).toBe(true);
    expect(store.getState().content.document.nodes[500]?.data.prompt).toContain("{{state.query}}");
    expect(store.getState().dispatch({ type: "move-nodes", positions: [{ id: "n3", x: 1, y: 1 }] }).ok).toBe(true);
    // Pasting all of it once more fits the 2,000-node limit; twice would pass it: refused with a code.
    const copy = copySelection(
      store.getState().content,
      store.getState().content.document.nodes.map((n) => n.id),
    );
    expect(store.getState().dispatch({ type: "paste", text: copy }).ok).toBe(true);
    expect(store.getState().dispatch({ type: "paste", text: copy })).toEqual({
      ok: false,
      error: { code: "EDITOR_TOO_MANY_NODES", params: { max: 2000 } },
    });
    store.getState().undo();
    store.getState().undo();
    store.getState().undo();
    expect(contentText(store)).toBe(before);
    // Seconds of work on a busy machine (150,000 references); the limit only ends a stuck test.
  }, 120_000);
});
