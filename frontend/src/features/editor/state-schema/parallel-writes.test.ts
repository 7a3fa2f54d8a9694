// Two nodes that can run in one superstep and write the same `replace` field are found while the
// document is edited, by the validator's own analysis.
import { describe, expect, it } from "vitest";
import type { WorkflowDocument } from "../document";
import { parallelWrites } from "./parallel-writes";

const llm = (id: string, output_field: string) => ({
  id,
  type: "llm" as const,
  position: { x: 0, y: 0 },
  data: { model: "m", prompt: "p", output_field },
});
const edge = (source: string, target: string, label?: string) => ({
  id: `${source}-${target}`,
  source,
  target,
  ...(label ? { label } : {}),
});

function fanOut(reducer?: "replace" | "append"): WorkflowDocument {
  return {
    name: "fan-out",
    state: [{ name: "summary", type: "string", ...(reducer ? { reducer } : {}) }],
    nodes: [llm("a", "summary"), llm("b", "summary")],
    edges: [edge("start", "a"), edge("start", "b"), edge("a", "end"), edge("b", "end")],
  };
}

describe("parallel writes of a replace field", () => {
  it("flags two branches of a fan-out that both write a replace field", async () => {
    expect(await parallelWrites(fanOut())).toEqual([{ field: "summary", nodes: ["a", "b"], approximate: false }]);
    expect(await parallelWrites(fanOut("replace"))).toHaveLength(1);
  });

  it("does not flag a field with a reducer that merges parallel writes", async () => {
    expect(await parallelWrites(fanOut("append"))).toEqual([]);
  });

  it("does not flag the same writers one after the other", async () => {
    const document: WorkflowDocument = {
      ...fanOut(),
      edges: [edge("start", "a"), edge("a", "b"), edge("b", "end")],
    };
    expect(await parallelWrites(document)).toEqual([]);
  });

  it("does not flag the alternatives of a Condition (only one of them runs)", async () => {
    const document: WorkflowDocument = {
      name: "branches",
      state: [
        { name: "summary", type: "string" },
        { name: "kind", type: "string" },
      ],
      nodes: [
        {
          id: "route",
          type: "condition",
          position: { x: 0, y: 0 },
          data: {
            rules: [{ label: "x", conditions: [{ field: "kind", operator: "equals", value: "x" }] }],
            default_label: "else",
          },
        },
        llm("a", "summary"),
        llm("b", "summary"),
      ],
      edges: [
        edge("start", "route"),
        edge("route", "a", "x"),
        edge("route", "b", "else"),
        edge("a", "end"),
        edge("b", "end"),
      ],
    };
    expect(await parallelWrites(document)).toEqual([]);
  });

  it("flags writers at different depths that still meet in one superstep, and a Code node's outputs", async () => {
    const document: WorkflowDocument = {
      name: "uneven",
      state: [{ name: "result", type: "any" }],
      nodes: [
        llm("first", "other"),
        llm("deep", "result"),
        {
          id: "code",
          type: "code",
          position: { x: 0, y: 0 },
          data: { language: "javascript", code: "function main(){return {}}", outputs: ["result"] },
        },
        llm("mid", "other2"),
      ],
      // start → first → deep ; start → mid → code: deep and code both run in superstep 2.
      edges: [edge("start", "first"), edge("first", "deep"), edge("start", "mid"), edge("mid", "code")],
    };
    expect(await parallelWrites(document)).toEqual([{ field: "result", nodes: ["code", "deep"], approximate: false }]);
  });

  it("has nothing to check without replace fields", async () => {
    expect(await parallelWrites({ name: "x", state: [], nodes: [], edges: [] })).toEqual([]);
  });
});
