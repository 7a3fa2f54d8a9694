import { describe, expect, it } from "vitest";
import type { WorkflowDocument } from "@/lib/api";
import { sampleDocument } from "../document/document.fixtures.js";
import { mergeDocuments } from "./merge-documents.js";

type Node = WorkflowDocument["nodes"][number];
const node = (doc: WorkflowDocument, id: string) => doc.nodes.find((n) => n.id === id) as Node;

describe("merging your edits onto the server's document", () => {
  it("applies edits to elements the server left alone, keeping the server's own edits", () => {
    const base = sampleDocument();
    const mine = structuredClone(base);
    const theirs = structuredClone(base);
    node(mine, "draft").data.prompt = "Mine: {{state.question}}";
    mine.nodes.push({ id: "mine_node", type: "join", position: { x: 0, y: 9 }, data: {} });
    mine.edges.push({ id: "e_mine", source: "draft", target: "mine_node" });
    mine.state = mine.state.filter((field) => field.name !== "summaries");
    node(theirs, "check").position = { x: 999, y: 1 };
    theirs.nodes.push({ id: "their_node", type: "join", position: { x: 5, y: 5 }, data: {} });
    theirs.name = "Renamed on the server";

    const { document, conflicts } = mergeDocuments(base, mine, theirs);
    expect(conflicts).toEqual([]);
    expect(document.name).toBe("Renamed on the server");
    expect(node(document, "draft").data.prompt).toBe("Mine: {{state.question}}");
    expect(node(document, "check").position).toEqual({ x: 999, y: 1 });
    expect(document.nodes.map((n) => n.id)).toEqual([...theirs.nodes.map((n) => n.id), "mine_node"]);
    expect(document.edges.at(-1)).toEqual({ id: "e_mine", source: "draft", target: "mine_node" });
    expect(document.state.map((f) => f.name)).not.toContain("summaries");
  });

  it("keeps the server's version of what both touched and lists each conflict", () => {
    const base = sampleDocument();
    const mine = structuredClone(base);
    const theirs = structuredClone(base);
    node(mine, "draft").data.prompt = "mine";
    node(theirs, "draft").data.prompt = "theirs";
    node(mine, "check").data.default_label = "other";
    theirs.nodes = theirs.nodes.filter((n) => n.id !== "check");
    theirs.edges = theirs.edges.filter((e) => e.source !== "check" && e.target !== "check");
    mine.nodes = mine.nodes.filter((n) => n.id !== "each");
    node(theirs, "each").data.output_field = "answer";
    mine.nodes.push({ id: "same_id", type: "join", position: { x: 0, y: 0 }, data: {} });
    theirs.nodes.push({ id: "same_id", type: "join", position: { x: 1, y: 0 }, data: {} });
    mine.name = "Mine";
    theirs.name = "Theirs";

    const { document, conflicts } = mergeDocuments(base, mine, theirs);
    expect(conflicts).toEqual(
      expect.arrayContaining([
        { kind: "node", id: "draft", reason: "both-changed" },
        { kind: "node", id: "check", reason: "removed-on-server" },
        { kind: "node", id: "each", reason: "changed-on-server" },
        { kind: "node", id: "same_id", reason: "both-added" },
        { kind: "workflow", id: "name", reason: "both-changed" },
      ]),
    );
    expect(node(document, "draft").data.prompt).toBe("theirs");
    expect(document.nodes.some((n) => n.id === "check")).toBe(false);
    expect(node(document, "each").data.output_field).toBe("answer");
    expect(node(document, "same_id").position).toEqual({ x: 1, y: 0 });
    expect(document.name).toBe("Theirs");
  });

  it("drops a connection of yours to a node the server removed, and says so", () => {
    const base = sampleDocument();
    const mine = structuredClone(base);
    const theirs = structuredClone(base);
    mine.edges.push({ id: "e_new", source: "draft", target: "check", label: undefined as never });
    delete (mine.edges.at(-1) as { label?: string }).label;
    theirs.nodes = theirs.nodes.filter((n) => n.id !== "check");
    theirs.edges = theirs.edges.filter((e) => e.source !== "check" && e.target !== "check");
    const { document, conflicts } = mergeDocuments(base, mine, theirs);
    expect(conflicts).toEqual([{ kind: "edge", id: "e_new", reason: "endpoint-missing" }]);
    expect(document.edges.some((e) => e.id === "e_new")).toBe(false);
  });

  it("gives the server's document back when you changed nothing, and yours when the server did not", () => {
    const base = sampleDocument();
    const changed = structuredClone(base);
    node(changed, "draft").data.label = "Nháp 📝";
    expect(mergeDocuments(base, base, changed)).toEqual({ document: changed, conflicts: [] });
    expect(mergeDocuments(base, changed, base)).toEqual({ document: changed, conflicts: [] });
  });
});
