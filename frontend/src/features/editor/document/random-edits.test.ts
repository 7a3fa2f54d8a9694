// Thirty random edits of every kind, replayed from a seed: undone one by one they walk back
// through every state they passed, ending at the original document byte for byte; redone, they
// end at the final one.
import { describe, expect, it } from "vitest";
import { NODE_TYPES } from "./backend-shared.js";
import { copySelection } from "./commands/clipboard.js";
import type { Command } from "./commands/command-types.js";
import { contentText, loadedStore, seededRandom } from "./document.fixtures.js";
import type { DocumentStore } from "./document-store.js";

const KINDS = [
  "add",
  "move",
  "connect",
  "delete",
  "setting",
  "paste",
  "rename-field",
  "layout",
  "note",
  "duplicate",
  "label",
] as const;

const TEXTS = ["Xin chào {{state.question}} 👋", "Tóm tắt: {{state.answer}}", "plain", "", "{{ state.items.0 }} ✅"];

function randomCommand(store: DocumentStore, random: () => number): { kind: (typeof KINDS)[number]; command: Command } {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const { content } = store.getState();
  const { nodes, edges, state } = content.document;
  const kind = pick(KINDS);
  const node = () => pick(nodes).id;
  const spot = () => ({ x: Math.round(random() * 2000) - 1000, y: Math.round(random() * 2000) - 1000 });
  switch (kind) {
    case "add":
      return { kind, command: { type: "add-node", node: { type: pick(NODE_TYPES), position: spot() } } };
    case "move":
      return { kind, command: { type: "move-nodes", positions: [{ id: node(), ...spot() }] } };
    case "connect":
      return {
        kind,
        command: {
          type: "connect",
          source: node(),
          target: node(),
          ...(random() < 0.5 ? { label: pick(["item", "done", "yes"]) } : {}),
        },
      };
    case "delete":
      return random() < 0.5 || edges.length === 0
        ? { kind, command: { type: "remove", nodeIds: [node()] } }
        : { kind, command: { type: "remove", edgeIds: [pick(edges).id] } };
    case "setting":
      return {
        kind,
        command: {
          type: "update-node-data",
          nodeId: node(),
          path: [pick(["prompt", "label", "system"])],
          value: pick(TEXTS),
        },
      };
    case "paste": {
      const picked = nodes.filter(() => random() < 0.3).map((n) => n.id);
      return {
        kind,
        command: { type: "paste", text: copySelection(content, picked.length > 0 ? picked : [node()]), at: spot() },
      };
    }
    case "rename-field":
      return {
        kind,
        command: { type: "rename-state-field", from: pick(state).name, to: `f${Math.floor(random() * 1e6)}` },
      };
    case "layout":
      return { kind, command: { type: "apply-layout", positions: nodes.map((n) => ({ id: n.id, ...spot() })) } };
    case "note":
      return { kind, command: { type: "add-note", note: { position: spot(), text: pick(TEXTS) } } };
    case "duplicate":
      return { kind, command: { type: "duplicate", nodeIds: [node()] } };
    case "label":
      return edges.length === 0
        ? { kind, command: { type: "add-node", node: { type: "join", position: spot() } } }
        : { kind, command: { type: "set-edge-label", edgeId: pick(edges).id, label: pick(["a", "b", null]) } };
  }
}

describe.each([1, 7, 42, 2024, 99_991])("30 random edits (seed %i)", (seed) => {
  it("undone in full give back the original byte for byte, redone give the final one", () => {
    const random = seededRandom(seed);
    const store = loadedStore();
    const states = [contentText(store)];
    const kinds = new Set<string>();
    let attempts = 0;
    while (states.length <= 30) {
      attempts++;
      expect(attempts).toBeLessThan(1000);
      const { kind, command } = randomCommand(store, random);
      const result = store.getState().dispatch(command);
      // Some random edits are refused (an edge into Start, a duplicate edge, …): with a code.
      if (!result.ok) {
        expect(result.error.code).toMatch(/^EDITOR_/);
        continue;
      }
      if (!result.changed) continue;
      store.getState().closeGroup();
      kinds.add(kind);
      states.push(contentText(store));
    }
    expect(store.getState().history.past).toHaveLength(30);
    expect(kinds.size).toBeGreaterThanOrEqual(8);
    for (let i = 29; i >= 0; i--) {
      expect(store.getState().undo()).toBe(true);
      expect(contentText(store)).toBe(states[i]);
    }
    expect(store.getState().undo()).toBe(false);
    while (store.getState().redo());
    expect(contentText(store)).toBe(states[30]);
  });
});
