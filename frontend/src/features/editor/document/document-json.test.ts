import { describe, expect, it } from "vitest";
import { contentText, loadedStore, sampleDocument } from "./document.fixtures.js";
import { documentText, lineColumns, MAX_DOCUMENT_CHARS, parseDocumentText } from "./document-json.js";

describe("JSON view text", () => {
  it("round-trips the document", () => {
    const document = sampleDocument();
    const parsed = parseDocumentText(documentText(document));
    expect(parsed).toEqual({ ok: true, document });
  });

  it("answers syntax errors with their line and column", () => {
    const text = '{\n  "name": "x"\n  "nodes": []\n}';
    expect(parseDocumentText(text)).toEqual({
      ok: false,
      problems: [{ code: "EDITOR_JSON_SYNTAX", detail: "CommaExpected", offset: 18, length: 7, line: 3, column: 3 }],
    });
    const trailing = parseDocumentText('{"name": "x",}');
    expect(trailing.ok === false && trailing.problems.map((p) => [p.code, p.detail, p.line, p.column])[0]).toEqual([
      "EDITOR_JSON_SYNTAX",
      "PropertyNameExpected",
      1,
      14,
    ]);
    const comment = parseDocumentText('// note\n{"name": "x"}');
    expect(comment.ok === false && comment.problems[0]?.detail).toBe("InvalidCommentToken");
    const empty = parseDocumentText("");
    expect(empty.ok === false && empty.problems[0]?.code).toBe("EDITOR_JSON_SYNTAX");
  });

  it("answers schema problems at the place they concern", () => {
    const document = sampleDocument() as unknown as { nodes: Record<string, unknown>[] };
    (document.nodes[1] as Record<string, unknown>).type = "webhook";
    (document.nodes[2] as Record<string, unknown>).colour = "red";
    const text = JSON.stringify(document, null, 2);
    const result = parseDocumentText(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const [type, colour] = result.problems;
    expect(type).toMatchObject({ code: "EDITOR_JSON_SCHEMA", path: "nodes.1.type" });
    expect(text.slice(type!.offset, type!.offset + type!.length)).toBe('"webhook"');
    expect(text.split("\n")[type!.line - 1]?.slice(type!.column - 1)).toBe('"webhook",');
    expect(colour).toMatchObject({ code: "EDITOR_JSON_SCHEMA", path: "nodes.2" });
    expect(text.slice(colour!.offset, colour!.offset + colour!.length)).toBe('"colour": "red"');
    const missing = parseDocumentText('{"nodes": []}');
    expect(missing.ok === false && missing.problems).toEqual([
      expect.objectContaining({ code: "EDITOR_JSON_SCHEMA", path: "name", line: 1, column: 1, offset: 0 }),
    ]);
  });

  it("refuses text over the size limit before parsing it", () => {
    const result = parseDocumentText(" ".repeat(MAX_DOCUMENT_CHARS + 1));
    expect(result.ok === false && result.problems[0]?.code).toBe("EDITOR_DOCUMENT_TOO_LARGE");
  });

  it("never replaces the last valid document: an invalid edit leaves the store, a valid one is one undo step", () => {
    const store = loadedStore();
    const before = contentText(store);
    const text = documentText(store.getState().content.document);
    const broken = text.replace('"name": "Sample"', '"name": "Sample",,');
    const edit = (value: string) => {
      const parsed = parseDocumentText(value);
      if (parsed.ok) store.getState().dispatch({ type: "replace-document", document: parsed.document, reason: "json" });
      return parsed.ok;
    };
    expect(edit(broken)).toBe(false);
    expect(contentText(store)).toBe(before);
    expect(store.getState().history.past).toHaveLength(0);
    const untouched = store.getState().content.document.nodes;
    expect(edit(text.replace('"label": "Draft"', '"label": "Bản nháp"'))).toBe(true);
    const after = store.getState().content.document;
    expect(after.nodes[1]?.data.label).toBe("Bản nháp");
    // Only the edited node is a new object; the others are shared with the step before.
    expect(after.nodes.filter((n, i) => n !== untouched[i]).map((n) => n.id)).toEqual(["draft"]);
    expect(after.edges).toBe(sampleDocumentEdges(store));
    store.getState().undo();
    expect(contentText(store)).toBe(before);
  });

  it("finds lines and columns by binary search", () => {
    const position = lineColumns("ab\ncd\n\nef");
    expect([0, 1, 3, 6, 7, 8].map(position)).toEqual([
      { line: 1, column: 1 },
      { line: 1, column: 2 },
      { line: 2, column: 1 },
      { line: 3, column: 1 },
      { line: 4, column: 1 },
      { line: 4, column: 2 },
    ]);
  });
});

function sampleDocumentEdges(store: ReturnType<typeof loadedStore>) {
  return store.getState().history.past[0]?.before.document.edges;
}
