import { describe, expect, it } from "vitest";
import { NODE_SAMPLES } from "../../../test/node-samples.js";
import { NODE_TYPES } from "../../schemas/workflow.schema.js";
import { findReferencesDeep } from "../templates/template.js";
import { templatesOf, writesOf } from "../validator/node-facts.js";
import type { TypedNode } from "../validator/validation-types.js";
import { NODE_DATA } from "./node-data.schema.js";
import { declaredOutputLabels, factsOf, fieldMentions, NODE_TYPE_FACTS, templateTexts } from "./node-type-facts.js";

function typed(sample: (typeof NODE_SAMPLES)[number]): TypedNode {
  return { id: "n", type: sample.type, data: NODE_DATA[sample.type].parse(sample.data) } as TypedNode;
}

describe("node type facts", () => {
  it("cover every node type and no other", () => {
    expect(Object.keys(NODE_TYPE_FACTS).sort()).toEqual([...NODE_TYPES].sort());
    expect(factsOf("toString")).toBeUndefined();
    expect(factsOf("webhook")).toBeUndefined();
  });

  it("find the same references as the validator, in every place a template can be", () => {
    for (const sample of NODE_SAMPLES) {
      const node = typed(sample);
      const validator = findReferencesDeep(templatesOf(node)).map((r) => r.raw);
      const facts = findReferencesDeep(templateTexts(sample.type, node.data).map((t) => t.text)).map((r) => r.raw);
      expect(facts, sample.type).toEqual(validator);
    }
    // The samples do put references everywhere the validator looks.
    const withReferences = NODE_SAMPLES.filter((s) => findReferencesDeep(templatesOf(typed(s))).length > 0);
    expect(new Set(withReferences.map((s) => s.type))).toEqual(
      new Set(["llm", "tool", "condition", "decision", "for_each", "human", "send_email", "subgraph"]),
    );
  });

  it("name the same written fields as the validator, and the fields it checks elsewhere", () => {
    for (const sample of NODE_SAMPLES) {
      const node = typed(sample);
      const mentions = fieldMentions(sample.type, node.data);
      expect(
        mentions.filter((m) => m.writes).map((m) => m.name),
        sample.type,
      ).toEqual(writesOf(node));
    }
    const reads = (type: string) =>
      NODE_SAMPLES.filter((s) => s.type === type).flatMap((s) =>
        fieldMentions(s.type, typed(s).data)
          .filter((m) => !m.writes)
          .map((m) => m.name),
      );
    expect(reads("start")).toEqual(["question", "user"]);
    expect(reads("end")).toEqual(["answer"]);
    expect(reads("condition")).toEqual(["user", "n", "question"]);
  });

  it("give each mention the path of its setting", () => {
    const condition = NODE_SAMPLES.find((s) => s.type === "condition")!;
    expect(fieldMentions("condition", condition.data).map((m) => m.path)).toEqual([
      ["rules", 0, "conditions", 0, "field"],
      ["rules", 0, "conditions", 1, "field"],
      ["rules", 1, "conditions", 0, "field"],
    ]);
    const subgraph = NODE_SAMPLES.find((s) => s.type === "subgraph")!;
    expect(fieldMentions("subgraph", subgraph.data)).toEqual([
      { name: "answer", path: ["output", "answer"], form: "key", writes: true },
    ]);
    const tool = NODE_SAMPLES.find((s) => s.type === "tool")!;
    expect(templateTexts("tool", tool.data).map((t) => t.path)).toEqual([
      ["url"],
      ["headers", "X-Tenant"],
      ["body", "q"],
      ["body", "nested", 0],
    ]);
  });

  it("label outputs as the routing checks expect", () => {
    const condition = NODE_SAMPLES.find((s) => s.type === "condition")!;
    expect(declaredOutputLabels("condition", typed(condition).data)).toEqual(["big", "small", "other"]);
    const decision = NODE_SAMPLES.find((s) => s.type === "decision")!;
    expect(declaredOutputLabels("decision", decision.data)).toEqual(["yes", "no"]);
    expect(declaredOutputLabels("for_each", {})).toEqual(["item", "done"]);
    expect(declaredOutputLabels("llm", {})).toEqual([]);
    expect(NODE_TYPE_FACTS.end.outputs).toEqual({ kind: "none" });
    expect(NODE_TYPE_FACTS.start.input).toBe(false);
  });

  it("never throw on settings of the wrong shape", () => {
    for (const type of NODE_TYPES) {
      for (const data of [null, 3, "x", [], { rules: "x", inputs: {}, output: [1], headers: null }, { rules: [{}] }]) {
        expect(() => templateTexts(type, data)).not.toThrow();
        expect(() => fieldMentions(type, data)).not.toThrow();
        expect(() => declaredOutputLabels(type, data)).not.toThrow();
      }
    }
  });
});
