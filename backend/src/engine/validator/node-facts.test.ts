import { describe, expect, it } from "vitest";
import { NODE_DATA } from "../nodes/node-data.schema.js";
import { stateReadsOf } from "./node-facts.js";
import type { TypedNode } from "./validation-types.js";

const node = (type: keyof typeof NODE_DATA, data: unknown) =>
  ({ id: "n", type, data: NODE_DATA[type].parse(data) }) as TypedNode;

describe("the state fields a node's settings read", () => {
  it("names each field read through {{state.…}}, once, and nothing of the item or context", () => {
    const llm = node("llm", {
      provider: "openai",
      model: "m",
      system: "{{context.tenant}} {{state.tone}}",
      prompt: "{{state.message.text}} / {{state.message.from}} / {{state.tone}}",
      output_field: "answer",
    });
    expect(stateReadsOf(llm)).toEqual(["tone", "message"]);
  });

  it("is null for a setting that reads the whole state", () => {
    const tool = node("tool", {
      kind: "http",
      method: "POST",
      url: "http://127.0.0.1/x",
      body: "{{state}}",
      output_field: "r",
    });
    expect(stateReadsOf(tool)).toBeNull();
  });

  it("is empty for a node whose settings name no field (a Code node's body is not read)", () => {
    expect(stateReadsOf(node("code", { language: "javascript", code: "function main(state){return {}}" }))).toEqual([]);
  });
});
