// What the state editor and the settings form rely on in the document store: renaming a field
// rewrites every reference in every node as one undo step, and the keystrokes of one setting
// merge into one step that ends when the field is left (closeGroup on blur).
import { describe, expect, it } from "vitest";
import { createDocumentStore, findUsages, type WorkflowDocument } from "../document";

const DOCUMENT: WorkflowDocument = {
  name: "Tên có dấu 🚀",
  state: [
    { name: "question", type: "string" },
    { name: "answer", type: "string" },
  ],
  nodes: [
    {
      id: "ask",
      type: "llm",
      position: { x: 0, y: 0 },
      data: { model: "m", prompt: "Hỏi: {{state.question}} / {{ state.question.text }}", output_field: "answer" },
    },
    {
      id: "route",
      type: "condition",
      position: { x: 0, y: 0 },
      data: {
        rules: [
          { label: "x", conditions: [{ field: "question.kind", operator: "equals", value: "{{state.question}}" }] },
        ],
        default_label: "else",
      },
    },
    {
      id: "mail",
      type: "send_email",
      position: { x: 0, y: 0 },
      data: { to: "a@example.com", subject: "{{state.questions}}", body: "{{state.question}}" },
    },
  ],
  edges: [],
};

function opened() {
  const store = createDocumentStore();
  expect(store.getState().load({ workflowId: "w", version: 1, document: DOCUMENT }).ok).toBe(true);
  return store;
}

describe("state field edits through the document store", () => {
  it("renames a field and every reference to it as one undo step, and undoes it exactly", () => {
    const store = opened();
    const before = JSON.stringify(store.getState().content.document);
    expect(store.getState().dispatch({ type: "rename-state-field", from: "question", to: "query" }).ok).toBe(true);
    const after = store.getState().content.document;
    expect(after.state[0]?.name).toBe("query");
    expect(after.nodes[0]?.data.prompt).toBe("Hỏi: {{state.query}} / {{ state.query.text }}");
    expect(after.nodes[1]?.data.rules).toEqual([
      { label: "x", conditions: [{ field: "query.kind", operator: "equals", value: "{{state.query}}" }] },
    ]);
    // Another field whose name starts the same is left alone.
    expect(after.nodes[2]?.data).toMatchObject({ subject: "{{state.questions}}", body: "{{state.query}}" });
    expect(findUsages(after, "question")).toEqual([]);
    expect(findUsages(after, "query").map((u) => u.nodeId)).toEqual(["ask", "ask", "route", "route", "mail"]);

    expect(store.getState().history.past).toHaveLength(1);
    expect(store.getState().history.past[0]?.labelKey).toBe("editor.history.renameStateField");
    expect(store.getState().undo()).toBe(true);
    expect(JSON.stringify(store.getState().content.document)).toBe(before);
    expect(store.getState().history.past).toHaveLength(0);
  });

  it("merges the keystrokes of one setting into one step until the field is left", () => {
    const store = opened();
    const { dispatch } = store.getState();
    for (const text of ["H", "He", "Hel", "Hello 🚀"])
      dispatch({ type: "update-node-data", nodeId: "ask", path: ["prompt"], value: text });
    expect(store.getState().history.past).toHaveLength(1);
    store.getState().closeGroup();
    dispatch({ type: "update-node-data", nodeId: "ask", path: ["prompt"], value: "Hello 🚀 đó" });
    expect(store.getState().history.past).toHaveLength(2);
    // Another setting starts its own step even without a blur.
    dispatch({ type: "update-node-data", nodeId: "ask", path: ["model"], value: "m2" });
    expect(store.getState().history.past).toHaveLength(3);
    store.getState().undo();
    store.getState().undo();
    expect(store.getState().content.document.nodes[0]?.data.prompt).toBe("Hello 🚀");
    store.getState().undo();
    expect(store.getState().content.document.nodes[0]?.data.prompt).toBe(DOCUMENT.nodes[0]?.data.prompt);
  });

  it("refuses a field name that is not an identifier, with the code the panel translates", () => {
    const store = opened();
    const result = store.getState().dispatch({ type: "rename-state-field", from: "question", to: "câu_hỏi" });
    expect(result).toEqual({
      ok: false,
      error: { code: "EDITOR_STATE_FIELD_NAME_INVALID", params: { name: "câu_hỏi" } },
    });
    expect(store.getState().history.past).toHaveLength(0);
  });
});
