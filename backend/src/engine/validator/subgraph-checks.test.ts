// The Subgraph checks' messages: a depth problem says how deep the nesting goes and what the
// limit allows, wherever in the chain it is found.
import { describe, expect, it } from "vitest";
import type { ValidationEnvironment } from "./validator.js";
import { validateWorkflow } from "./validator.js";

type Doc = Record<string, unknown>;
const pos = { x: 0, y: 0 };
const edge = (source: string, target: string) => ({ id: `${source}-${target}`, source, target });
const subgraph = (id: string, workflowId: string) => ({
  id,
  type: "subgraph",
  position: pos,
  data: { workflow_id: workflowId, version: 1, input: {}, output: {} },
});
const leaf: Doc = {
  name: "leaf",
  nodes: [{ id: "c", type: "code", position: pos, data: { language: "javascript", code: "function main(s) {}" } }],
  edges: [edge("start", "c")],
};
const parentOf = (name: string, child: string): Doc => ({
  name,
  nodes: [subgraph("s", child)],
  edges: [edge("start", "s")],
});

function env(maxSubgraphDepth: number, saved: Record<string, Doc>): ValidationEnvironment {
  return {
    codeMode: "wasm",
    providers: {
      openai: { configured: true, variable: "OPENAI_API_KEY" },
      anthropic: { configured: true, variable: "ANTHROPIC_API_KEY" },
    },
    serverKeyNeeded: () => false,
    smtpConfigured: true,
    maxSubgraphDepth,
    resolveWorkflow: async (id, version) => saved[`${id}@${version}`],
    credentialType: async () => undefined,
  };
}

/** w1 uses the leaf, w2 uses w1, …: `top` → w<levels-1> → … → leaf nests `levels` deep. */
function chain(levels: number): { top: Doc; saved: Record<string, Doc> } {
  const saved: Record<string, Doc> = { "w0@1": leaf };
  for (let i = 1; i < levels; i++) saved[`w${i}@1`] = parentOf(`w${i}`, `w${i - 1}`);
  return { top: parentOf("top", `w${levels - 1}`), saved };
}

describe("subgraph depth", () => {
  it("states the limit and the depth reached, under the outer node with the path to it", async () => {
    const { top, saved } = chain(6);
    const result = await validateWorkflow(top, env(5, saved));
    expect(result.ok).toBe(false);
    const found = result.ok ? [] : result.problems;
    expect(found).toEqual([
      {
        code: "SUBGRAPH_DEPTH_EXCEEDED",
        node_id: "s",
        message:
          "In subgraph w5 v1: In subgraph w4 v1: In subgraph w3 v1: In subgraph w2 v1: In subgraph w1 v1: " +
          "Subgraphs nest 6 levels here (w0 v1 is level 6); STUDIO_MAX_SUBGRAPH_DEPTH allows 5.",
      },
    ]);
  });

  it("names one level when no nesting is allowed at all", async () => {
    const { top, saved } = chain(1);
    const result = await validateWorkflow(top, env(0, saved));
    expect(result.ok ? [] : result.problems.map((p) => p.message)).toEqual([
      "Subgraphs nest 1 level here (w0 v1 is level 1); STUDIO_MAX_SUBGRAPH_DEPTH allows 0.",
    ]);
  });

  it("accepts the same chain at the limit", async () => {
    const { top, saved } = chain(5);
    expect((await validateWorkflow(top, env(5, saved))).ok).toBe(true);
  });
});
