import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { documentText, parseDocumentText } from "../document";
import { loadedStore, sampleDocument } from "../document/document.fixtures";
import { explainJsonProblems } from "./json-problems";
import { createJsonSync, type JsonEditOutcome } from "./json-sync";

function setup() {
  const store = loadedStore();
  const outcomes: JsonEditOutcome[] = [];
  const sync = createJsonSync(store, (o) => outcomes.push(o), 500);
  return { store, outcomes, sync, text: documentText(store.getState().content.document) };
}

describe("JSON view edits", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("applies a burst of typing as one replace-document step, after the pause", () => {
    const { store, outcomes, sync, text } = setup();
    sync.edit(text.replace('"Sample"', '"Sampl"'));
    sync.edit(text.replace('"Sample"', '"Sample 2"'));
    vi.advanceTimersByTime(499);
    expect(store.getState().history.past).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(store.getState().content.document.name).toBe("Sample 2");
    expect(store.getState().history.past.map((e) => e.labelKey)).toEqual(["editor.history.replaceDocument.json"]);
    expect(outcomes).toEqual([{ kind: "applied", text: documentText(store.getState().content.document) }]);
    store.getState().undo();
    expect(store.getState().content.document.name).toBe("Sample");
  });

  it("keeps the last valid document and reports line and column for invalid JSON", () => {
    const { store, outcomes, sync, text } = setup();
    const before = store.getState().content;
    const broken = text.replace('"name": "Sample",', '"name": "Sample"');
    sync.edit(broken);
    sync.flush();
    expect(store.getState().content).toBe(before);
    const outcome = outcomes[0];
    expect(outcome?.kind).toBe("invalid");
    if (outcome?.kind !== "invalid") return;
    expect(outcome.problems[0]).toMatchObject({ code: "EDITOR_JSON_SYNTAX", line: 3, column: 3 });
  });

  it("answers unchanged for a text equal to the document, and nothing after cancel", () => {
    const { store, outcomes, sync, text } = setup();
    sync.edit(text);
    sync.flush();
    sync.edit("{");
    expect(sync.pending).toBe(true);
    sync.cancel();
    vi.runAllTimers();
    expect(outcomes).toEqual([{ kind: "unchanged" }]);
    expect(store.getState().history.past).toHaveLength(0);
  });

  it("answers the store's refusal (a read-only preview) and changes nothing", () => {
    const { store, outcomes, sync, text } = setup();
    store.getState().load({ workflowId: "w", version: 1, document: sampleDocument(), readOnly: true });
    sync.edit(text.replace('"Sample"', '"Other"'));
    sync.flush();
    expect(outcomes).toEqual([{ kind: "refused", error: { code: "EDITOR_READ_ONLY" } }]);
  });
});

describe("JSON view problems", () => {
  const problemsOf = (text: string) => {
    const parsed = parseDocumentText(text);
    if (parsed.ok) throw new Error("expected problems");
    return explainJsonProblems(text, parsed.problems);
  };

  it("says once that a JSON file without a workflow's parts is not a workflow", () => {
    const text = JSON.stringify({ name: "pkg", version: "1.0.0", dependencies: {} }, null, 2);
    expect(problemsOf(text)).toEqual([
      { key: "editor.json.notWorkflow", params: {}, offset: 0, length: 0, line: 1, column: 1 },
    ]);
    expect(problemsOf("[1, 2]").map((p) => p.key)).toEqual(["editor.json.notWorkflow"]);
  });

  it("names a node type that does not exist, with its position", () => {
    const document = sampleDocument();
    (document.nodes[1] as { type: string }).type = "webhook";
    const text = documentText(document);
    const [problem, ...rest] = problemsOf(text);
    expect(rest).toEqual([]);
    const line = text.split("\n").findIndex((l) => l.includes('"type": "webhook"')) + 1;
    expect(problem).toMatchObject({ key: "editor.json.unknownNodeType", params: { type: "webhook", line } });
  });

  it("keeps other schema problems with their path, and syntax problems with their position", () => {
    const document = sampleDocument() as unknown as { nodes: { position: unknown }[] };
    (document.nodes[0] as { position: unknown }).position = "left";
    const [schema] = problemsOf(JSON.stringify(document, null, 2));
    expect(schema).toMatchObject({ key: "editor.errors.EDITOR_JSON_SCHEMA", params: { path: "nodes.0.position" } });
    const [syntax] = problemsOf('{\n  "name": x\n}');
    expect(syntax).toMatchObject({ key: "editor.errors.EDITOR_JSON_SYNTAX", line: 2, column: 11 });
  });
});
