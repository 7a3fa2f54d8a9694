import { describe, expect, it } from "vitest";
import { createDocumentStore, type WorkflowDocument } from "../document";
import { documentContextKeys } from "./reference-scope";

const DOCUMENT: WorkflowDocument = {
  name: "ngữ cảnh",
  state: [{ name: "q", type: "string" }],
  nodes: [
    {
      id: "a",
      type: "llm",
      position: { x: 0, y: 0 },
      data: { model: "m", prompt: "{{context.tenant}} {{state.q}}", output_field: "q" },
    },
    {
      id: "b",
      type: "send_email",
      position: { x: 0, y: 0 },
      data: { to: "{{ context.email.to }}", subject: "{{context.tenant}}", body: "" },
    },
    {
      id: "c",
      type: "code",
      position: { x: 0, y: 0 },
      data: { language: "javascript", code: "{{context.not_a_template}}" },
    },
  ],
  edges: [],
};

describe("context keys for completion", () => {
  it("lists the context keys used in templates, once each and sorted, not in code", () => {
    expect(documentContextKeys(DOCUMENT)).toEqual(["email", "tenant"]);
  });

  it("follows edits of a template, and a move does not change what it finds", () => {
    const store = createDocumentStore();
    store.getState().load({ workflowId: "w", version: 1, document: DOCUMENT });
    store.getState().dispatch({ type: "update-node-data", nodeId: "a", path: ["prompt"], value: "{{context.locale}}" });
    store.getState().dispatch({ type: "move-nodes", positions: [{ id: "b", x: 10, y: 10 }] });
    expect(documentContextKeys(store.getState().content.document)).toEqual(["email", "locale", "tenant"]);
  });
});
