// Workflows the document tests start from (imported by tests only).
import { expect } from "vitest";
import type { Command } from "./commands/command-types.js";
import { createDocumentStore, type DocumentStore } from "./document-store.js";
import type { EditorContent, WorkflowDocument } from "./document-types.js";

/** Start → Draft (LLM) → Check (Condition: high / low / else) → Each (For each, body Summarise) → End. */
export function sampleDocument(): WorkflowDocument {
  return {
    name: "Sample",
    state: [
      { name: "question", type: "string" },
      { name: "answer", type: "string", description: "What the model said" },
      { name: "score", type: "object" },
      { name: "items", type: "list", reducer: "append", default: [] },
      { name: "summaries", type: "list" },
    ],
    nodes: [
      { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: ["question"] } },
      {
        id: "draft",
        type: "llm",
        position: { x: 200, y: 0 },
        data: {
          label: "Draft",
          model: "gpt-4o-mini",
          system: "Be brief.",
          prompt: "Answer {{state.question}} ({{ state.score.value }}), not {{state.questions}}",
          output_field: "answer",
        },
      },
      {
        id: "check",
        type: "condition",
        position: { x: 400, y: 0 },
        data: {
          rules: [
            { label: "high", conditions: [{ field: "score.value", operator: "gte", value: 3 }] },
            { label: "low", conditions: [{ field: "score.value", operator: "lt", value: "{{state.score.min}}" }] },
          ],
          default_label: "else",
        },
      },
      {
        id: "each",
        type: "for_each",
        position: { x: 600, y: 0 },
        data: { items: "{{state.items}}", output_field: "summaries" },
      },
      {
        id: "summarise",
        type: "llm",
        position: { x: 600, y: 200 },
        data: {
          model: "gpt-4o-mini",
          prompt: "Summarise {{item}} #{{index}} for {{state.question}}",
          output_field: "answer",
        },
      },
      { id: "end", type: "end", position: { x: 800, y: 0 }, data: { outputs: ["answer", "summaries"] } },
    ],
    edges: [
      { id: "e1", source: "start", target: "draft" },
      { id: "e2", source: "draft", target: "check" },
      { id: "e3", source: "check", target: "each", label: "high" },
      { id: "e4", source: "check", target: "end", label: "low" },
      { id: "e5", source: "check", target: "end", label: "else" },
      { id: "e6", source: "each", target: "summarise", label: "item" },
      { id: "e7", source: "each", target: "end", label: "done" },
    ],
  };
}

export function loadedStore(document: unknown = sampleDocument(), historyLimit?: number): DocumentStore {
  const store = createDocumentStore(historyLimit === undefined ? {} : { historyLimit });
  const loaded = store.getState().load({ workflowId: "wf_1", version: 3, document });
  if (!loaded.ok) throw new Error(`fixture did not load: ${JSON.stringify(loaded.error)}`);
  return store;
}

/** The store's document and notes as text, for byte-for-byte comparisons. */
export function contentText(store: DocumentStore): string {
  return JSON.stringify(store.getState().content);
}

/** A small seeded random generator (mulberry32), so random edit sequences can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Check = (after: EditorContent) => void;

/** Every command but update-note once, with a check of what it does (uses vitest's expect). */
export const COMMANDS: [string, Command, Check][] = [
  [
    "add-node",
    { type: "add-node", node: { type: "code", position: { x: 5, y: 6 } } },
    (c) => {
      const added = c.document.nodes.at(-1)!;
      expect(added).toMatchObject({ id: "code_1", type: "code", position: { x: 5, y: 6 } });
      expect(added.data.language).toBe("javascript");
    },
  ],
  [
    "remove (nodes with their edges)",
    { type: "remove", nodeIds: ["check"] },
    (c) => {
      expect(c.document.nodes.map((n) => n.id)).not.toContain("check");
      expect(c.document.edges.map((e) => e.id)).toEqual(["e1", "e6", "e7"]);
    },
  ],
  [
    "move-nodes",
    { type: "move-nodes", positions: [{ id: "draft", x: 10, y: 20 }] },
    (c) => expect(c.document.nodes[1]?.position).toEqual({ x: 10, y: 20 }),
  ],
  [
    "apply-layout",
    {
      type: "apply-layout",
      positions: [
        { id: "start", x: 0, y: 100 },
        { id: "end", x: 0, y: 900 },
      ],
    },
    (c) => expect([c.document.nodes[0]?.position.y, c.document.nodes[5]?.position.y]).toEqual([100, 900]),
  ],
  [
    "connect (with a label)",
    { type: "connect", source: "draft", target: "end", label: "fallback" },
    (c) => expect(c.document.edges.at(-1)).toEqual({ id: "edge_1", source: "draft", target: "end", label: "fallback" }),
  ],
  [
    "disconnect",
    { type: "disconnect", edgeIds: ["e4", "e5"] },
    (c) => expect(c.document.edges.map((e) => e.id)).toEqual(["e1", "e2", "e3", "e6", "e7"]),
  ],
  [
    "set-edge-label",
    { type: "set-edge-label", edgeId: "e4", label: "medium" },
    (c) => expect(c.document.edges[3]?.label).toBe("medium"),
  ],
  [
    "update-node-data",
    { type: "update-node-data", nodeId: "draft", path: ["temperature"], value: 0.2 },
    (c) => expect(c.document.nodes[1]?.data.temperature).toBe(0.2),
  ],
  [
    "update-node-data (remove a setting)",
    { type: "update-node-data", nodeId: "draft", path: ["system"], value: undefined },
    (c) => expect(c.document.nodes[1]?.data).not.toHaveProperty("system"),
  ],
  [
    "update-node-data (a nested list member)",
    { type: "update-node-data", nodeId: "check", path: ["rules", 1, "label"], value: "lower" },
    (c) => expect((c.document.nodes[2]!.data.rules as { label: string }[])[1]?.label).toBe("lower"),
  ],
  [
    "rename-node",
    { type: "rename-node", nodeId: "check", label: "Kiểm tra điểm 🎯" },
    (c) => expect(c.document.nodes[2]?.data.label).toBe("Kiểm tra điểm 🎯"),
  ],
  [
    "add-state-field",
    { type: "add-state-field", field: { name: "tone", type: "string", default: "friendly" } },
    (c) => expect(c.document.state.at(-1)).toEqual({ name: "tone", type: "string", default: "friendly" }),
  ],
  [
    "update-state-field",
    { type: "update-state-field", name: "items", changes: { reducer: "replace" }, remove: ["default"] },
    (c) => expect(c.document.state[3]).toEqual({ name: "items", type: "list", reducer: "replace" }),
  ],
  [
    "remove-state-field",
    { type: "remove-state-field", name: "score" },
    (c) => expect(c.document.state.map((f) => f.name)).toEqual(["question", "answer", "items", "summaries"]),
  ],
  [
    "rename-state-field",
    { type: "rename-state-field", from: "question", to: "query" },
    (c) =>
      expect(c.document.nodes[1]?.data.prompt).toBe(
        "Answer {{state.query}} ({{ state.score.value }}), not {{state.questions}}",
      ),
  ],
  [
    "add-note",
    { type: "add-note", note: { position: { x: 1, y: 2 }, text: "Ghi chú: nhớ kiểm tra 📝", color: "yellow" } },
    (c) =>
      expect(c.notes).toEqual([
        { id: "note_1", position: { x: 1, y: 2 }, text: "Ghi chú: nhớ kiểm tra 📝", color: "yellow" },
      ]),
  ],
  [
    "paste",
    {
      type: "paste",
      text: JSON.stringify({ nodes: [{ id: "x", type: "join", position: { x: 0, y: 0 }, data: {} }] }),
      at: { x: 50, y: 60 },
    },
    (c) =>
      expect(c.document.nodes.at(-1)).toEqual({ id: "join_1", type: "join", position: { x: 50, y: 60 }, data: {} }),
  ],
  [
    "duplicate",
    { type: "duplicate", nodeIds: ["draft", "check"] },
    (c) => {
      expect(c.document.nodes.slice(-2).map((n) => n.id)).toEqual(["llm_1", "condition_1"]);
      expect(c.document.edges.at(-1)).toEqual({ id: "edge_1", source: "llm_1", target: "condition_1" });
    },
  ],
  [
    "replace-document",
    {
      type: "replace-document",
      document: { ...sampleDocument(), name: "Other", nodes: [], edges: [] },
      reason: "json",
    },
    (c) => expect(c.document).toEqual({ ...sampleDocument(), name: "Other", nodes: [], edges: [] }),
  ],
  [
    "update-workflow",
    { type: "update-workflow", name: "Quy trình xử lý đơn hàng 🚀", description: "Mô tả" },
    (c) => expect(c.document).toMatchObject({ name: "Quy trình xử lý đơn hàng 🚀", description: "Mô tả" }),
  ],
];

/** A chain of `count` Code nodes (`${prefix}0` → `${prefix}1` → …), 100 to a row: large-workflow tests. */
export function chainOfNodes(count: number, prefix: string): Pick<WorkflowDocument, "nodes" | "edges"> {
  return {
    nodes: Array.from({ length: count }, (_, i) => ({
      id: `${prefix}${i}`,
      type: "code",
      position: { x: (i % 100) * 260, y: Math.floor(i / 100) * 160 },
      data: { label: `Step ${i}` },
    })),
    edges: Array.from({ length: count - 1 }, (_, i) => ({
      id: `${prefix}e${i}`,
      source: `${prefix}${i}`,
      target: `${prefix}${i + 1}`,
    })),
  };
}
