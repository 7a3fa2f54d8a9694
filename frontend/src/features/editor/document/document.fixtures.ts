// Workflows the document tests start from (imported by tests only).
import { createDocumentStore, type DocumentStore } from "./document-store.js";
import type { WorkflowDocument } from "./document-types.js";

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
