import { describe, expect, it } from "vitest";
import { contentText, loadedStore, sampleDocument } from "./document.fixtures.js";
import type { WorkflowDocument } from "./document-types.js";
import {
  checkText,
  findUsages,
  nearestName,
  nodeReferences,
  referenceProblems,
  renameFieldInText,
  textReferences,
} from "./references.js";

describe("references in a node's settings", () => {
  it("lists every {{…}} with its setting path and place, as the backend scans them", () => {
    const draft = sampleDocument().nodes[1]!;
    const prompt = draft.data.prompt as string;
    expect(nodeReferences(draft).map((r) => [r.path, r.body, r.reference?.root, r.reference?.path])).toEqual([
      [["prompt"], "state.question", "state", ["question"]],
      [["prompt"], "state.score.value", "state", ["score", "value"]],
      [["prompt"], "state.questions", "state", ["questions"]],
    ]);
    const second = nodeReferences(draft)[1]!;
    expect(prompt.slice(second.start, second.end)).toBe("{{ state.score.value }}");
    const each = sampleDocument().nodes[4]!;
    expect(nodeReferences(each).map((r) => r.body)).toEqual(["item", "index", "state.question"]);
  });

  it("marks what is inside braces but is not a reference, without throwing", () => {
    expect(textReferences("{{state.a + 1}} and {{context.tenant}} and {{{state.b}}}")).toEqual([
      { start: 0, end: 15, body: "state.a + 1", reference: null, error: expect.stringContaining("path segment") },
      {
        start: 20,
        end: 38,
        body: "context.tenant",
        reference: { raw: "context.tenant", root: "context", path: ["tenant"] },
      },
      { start: 44, end: 55, body: "state.b", reference: { raw: "state.b", root: "state", path: ["b"] } },
    ]);
  });

  it("looks only where the node type holds templates (code is not a template)", () => {
    const code = {
      id: "c",
      type: "code" as const,
      data: { code: "const s = '{{state.question}}'", language: "javascript" },
    };
    expect(nodeReferences(code)).toEqual([]);
  });
});

describe("usages of a state field", () => {
  it("finds templates and settings that name it, with node id and setting path", () => {
    const document = sampleDocument();
    const prompt = document.nodes[1]!.data.prompt as string;
    const start = prompt.indexOf("{{ state.score.value }}");
    expect(findUsages(document, "score")).toEqual([
      { nodeId: "draft", path: ["prompt"], kind: "template", start, end: start + 23, writes: false },
      {
        nodeId: "check",
        path: ["rules", 1, "conditions", 0, "value"],
        kind: "template",
        start: 0,
        end: 19,
        writes: false,
      },
      { nodeId: "check", path: ["rules", 0, "conditions", 0, "field"], kind: "setting", writes: false },
      { nodeId: "check", path: ["rules", 1, "conditions", 0, "field"], kind: "setting", writes: false },
    ]);
    expect(findUsages(document, "answer").map((u) => [u.nodeId, u.path.join("."), u.writes])).toEqual([
      ["draft", "output_field", true],
      ["summarise", "output_field", true],
      ["end", "outputs.0", false],
    ]);
    expect(findUsages(document, "nothing")).toEqual([]);
  });
});

describe("unknown references", () => {
  it("flags undeclared fields with the nearest declared name, and {{item}} outside a For each body", () => {
    const document: WorkflowDocument = sampleDocument();
    const start = (document.nodes[1]!.data.prompt as string).indexOf("{{state.questions}}");
    document.nodes.push(
      {
        id: "late",
        type: "llm",
        position: { x: 0, y: 0 },
        data: { model: "m", prompt: "{{item.title}} {{state.zzz}} {{state.a b}}", output_field: "anwser" },
      },
      {
        id: "out",
        type: "subgraph",
        position: { x: 0, y: 0 },
        data: { workflow_id: "w", version: 1, output: { sumaries: "x" } },
      },
    );
    expect(referenceProblems(document)).toEqual([
      {
        code: "STATE_REFERENCE_UNKNOWN",
        nodeId: "draft",
        path: ["prompt"],
        start,
        end: start + 19,
        name: "questions",
        suggestion: "question",
      },
      { code: "ITEM_REFERENCE_OUTSIDE_FOR_EACH", nodeId: "late", path: ["prompt"], start: 0, end: 14 },
      { code: "STATE_REFERENCE_UNKNOWN", nodeId: "late", path: ["prompt"], start: 15, end: 28, name: "zzz" },
      { code: "TEMPLATE_INVALID", nodeId: "late", path: ["prompt"], start: 29, end: 42 },
      {
        code: "STATE_REFERENCE_UNKNOWN",
        nodeId: "late",
        path: ["output_field"],
        name: "anwser",
        suggestion: "answer",
      },
      {
        code: "STATE_REFERENCE_UNKNOWN",
        nodeId: "out",
        path: ["output", "sumaries"],
        name: "sumaries",
        suggestion: "summaries",
      },
    ]);
  });

  it("checks one text as it is typed, with offsets to underline", () => {
    const text = "Hi {{state.Question}}, {{state.question.x}} {{index}}";
    expect(checkText(text, { fields: ["question"], inForEachBody: false })).toEqual([
      { code: "STATE_REFERENCE_UNKNOWN", start: 3, end: 21, name: "Question", suggestion: "question" },
      { code: "ITEM_REFERENCE_OUTSIDE_FOR_EACH", start: 44, end: 53 },
    ]);
    expect(checkText(text.replace("Question", "question"), { fields: ["question"], inForEachBody: true })).toEqual([]);
  });

  it("suggests a name only when it is close", () => {
    expect(nearestName("sumary", ["summary", "score"])).toBe("summary");
    expect(nearestName("SCORE", ["summary", "score"])).toBe("score");
    expect(nearestName("total", ["summary", "score"])).toBeUndefined();
    expect(nearestName("x", [])).toBeUndefined();
  });
});

describe("renaming a state field", () => {
  it("rewrites only the field's references in a text, keeping spacing and everything else", () => {
    expect(renameFieldInText("{{ state.a.b }} {{state.ab}} {{state.a}} {{context.a}} {{state.a + 1}}", "a", "x")).toBe(
      "{{ state.x.b }} {{state.ab}} {{state.x}} {{context.a}} {{state.a + 1}}",
    );
    expect(renameFieldInText("no references", "a", "x")).toBe("no references");
  });

  it("updates every reference in every node as one undo step, edges untouched", () => {
    const document = sampleDocument();
    document.state.push({ name: "headers_in", type: "object" });
    document.nodes.push(
      {
        id: "call",
        type: "tool",
        position: { x: 0, y: 0 },
        data: {
          kind: "http",
          url: "https://example.com/{{state.score.id}}",
          headers: { "X-Score": "{{state.score}}" },
          body: { nested: ["{{state.score.value}}", "{{state.scores}}"] },
          output_field: "score",
        },
      },
      {
        id: "child",
        type: "subgraph",
        position: { x: 0, y: 0 },
        data: {
          workflow_id: "w",
          version: 1,
          input: { s: "{{state.score}}" },
          output: { answer: "a", score: "b", items: "c" },
        },
      },
      {
        id: "calc",
        type: "code",
        position: { x: 0, y: 0 },
        data: { language: "python", code: "{{state.score}}", outputs: ["score"] },
      },
    );
    const store = loadedStore(document);
    const before = contentText(store);
    const edges = JSON.stringify(store.getState().content.document.edges);
    const result = store.getState().dispatch({ type: "rename-state-field", from: "score", to: "rating" });
    expect(result.ok).toBe(true);
    const after = store.getState().content.document;
    const node = (id: string) => after.nodes.find((n) => n.id === id)!.data;
    expect(after.state.map((f) => f.name)).toEqual([
      "question",
      "answer",
      "rating",
      "items",
      "summaries",
      "headers_in",
    ]);
    expect(node("draft").prompt).toBe("Answer {{state.question}} ({{ state.rating.value }}), not {{state.questions}}");
    expect(node("check").rules).toEqual([
      { label: "high", conditions: [{ field: "rating.value", operator: "gte", value: 3 }] },
      { label: "low", conditions: [{ field: "rating.value", operator: "lt", value: "{{state.rating.min}}" }] },
    ]);
    expect(node("call")).toEqual({
      kind: "http",
      url: "https://example.com/{{state.rating.id}}",
      headers: { "X-Score": "{{state.rating}}" },
      body: { nested: ["{{state.rating.value}}", "{{state.scores}}"] },
      output_field: "rating",
    });
    // Subgraph output keys are this workflow's fields: renamed in place, order kept.
    expect(JSON.stringify(node("child"))).toBe(
      JSON.stringify({
        workflow_id: "w",
        version: 1,
        input: { s: "{{state.rating}}" },
        output: { answer: "a", rating: "b", items: "c" },
      }),
    );
    // Code is not a template: its text stays; its declared outputs follow the field.
    expect(node("calc")).toEqual({ language: "python", code: "{{state.score}}", outputs: ["rating"] });
    expect(JSON.stringify(after.edges)).toBe(edges);
    expect(findUsages(after, "score")).toEqual([]);
    expect(store.getState().history.past).toHaveLength(1);
    store.getState().undo();
    expect(contentText(store)).toBe(before);
  });

  it("refuses a name that is taken, invalid, a node's id, or a field that does not exist", () => {
    const store = loadedStore();
    const rename = (from: string, to: string) => store.getState().dispatch({ type: "rename-state-field", from, to });
    expect(rename("score", "answer")).toEqual({
      ok: false,
      error: { code: "EDITOR_STATE_FIELD_EXISTS", params: { name: "answer" } },
    });
    expect(rename("score", "1x")).toEqual({
      ok: false,
      error: { code: "EDITOR_STATE_FIELD_NAME_INVALID", params: { name: "1x" } },
    });
    expect(rename("score", "điểm")).toEqual({
      ok: false,
      error: { code: "EDITOR_STATE_FIELD_NAME_INVALID", params: { name: "điểm" } },
    });
    expect(rename("score", "constructor").ok).toBe(false);
    expect(rename("score", "draft")).toEqual({
      ok: false,
      error: { code: "EDITOR_STATE_FIELD_IS_NODE_ID", params: { name: "draft" } },
    });
    expect(rename("nope", "x")).toEqual({
      ok: false,
      error: { code: "EDITOR_STATE_FIELD_NOT_FOUND", params: { name: "nope" } },
    });
    expect(store.getState().history.past).toHaveLength(0);
  });
});
