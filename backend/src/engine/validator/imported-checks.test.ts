import { describe, expect, it } from "vitest";
import type { WorkflowDocument } from "../../schemas/workflow.schema.js";
import { validateWorkflow } from "./validator.js";

const env = {
  codeMode: "off" as const,
  providers: {
    openai: { configured: false, variable: "OPENAI_API_KEY" },
    anthropic: { configured: false, variable: "ANTHROPIC_API_KEY" },
  },
  serverKeyNeeded: () => false,
  smtpConfigured: false,
  maxSubgraphDepth: 4,
  credentialType: async () => undefined,
  resolveWorkflow: async () => undefined,
};

const at = { x: 0, y: 0 };
const codeNode = (id: string, node = id) => ({
  id,
  type: "code" as const,
  position: at,
  data: { label: id, language: "python", code: "# x", imported: { node, source: null, subgraph: null } },
});

function importedDoc(): WorkflowDocument {
  return {
    name: "imported",
    state: [],
    nodes: [
      { id: "start", type: "start", position: at, data: { label: "Start" } },
      codeNode("a"),
      codeNode("b"),
      { id: "end", type: "end", position: at, data: { label: "End" } },
    ],
    // A loop with no Condition, which an ordinary workflow may not have: the graph's own routing decides.
    edges: [
      { id: "e1", source: "start", target: "a" },
      { id: "e2", source: "a", target: "b", conditional: true },
      { id: "e3", source: "b", target: "a" },
      { id: "e4", source: "a", target: "end", conditional: true },
    ],
    imported: { job_id: "j", graph_id: "g", spec: "./g.py:graph", env_names: [], context_schema: null },
  };
}

async function codes(document: WorkflowDocument) {
  const result = await validateWorkflow(document, env);
  return result.ok ? [] : result.problems.map((p) => p.code);
}

describe("validating an imported workflow", () => {
  it("accepts its structure without checking its nodes against the Code node's schema or its loops", async () => {
    const result = await validateWorkflow(importedDoc(), env);
    expect(result.ok, JSON.stringify(result)).toBe(true);
    // Code is off on this server, and these Code nodes have no main(): neither matters here.
    const { imported: _imported, ...plain } = importedDoc();
    expect(await codes(plain)).toContain("LOOP_UNGUARDED");
  });

  it("refuses a node of another type, or a Code node without data.imported, with IMPORTED_NODE_INVALID", async () => {
    const llm = importedDoc();
    llm.nodes[1] = { id: "a", type: "llm", position: at, data: {} };
    expect(await codes(llm)).toEqual(["IMPORTED_NODE_INVALID"]);
    const bare = importedDoc();
    bare.nodes[2] = { id: "b", type: "code", position: at, data: { language: "python", code: "x" } };
    const result = await validateWorkflow(bare, env);
    expect(result.ok ? [] : result.problems).toEqual([
      expect.objectContaining({ code: "IMPORTED_NODE_INVALID", node_id: "b", path: "nodes.2.data.imported" }),
    ]);
    const twice = importedDoc();
    twice.nodes[2] = codeNode("b", "a");
    expect(await codes(twice)).toEqual(["IMPORTED_NODE_INVALID"]);
  });

  it("needs exactly one Start and one End", async () => {
    const noEnd = importedDoc();
    noEnd.nodes.pop();
    noEnd.edges = noEnd.edges.filter((e) => e.target !== "end");
    expect(await codes(noEnd)).toEqual(["IMPORTED_START_END"]);
    const twoStarts = importedDoc();
    twoStarts.nodes.push({ id: "start2", type: "start", position: at, data: {} });
    expect(await codes(twoStarts)).toEqual(["IMPORTED_START_END"]);
  });

  it("refuses duplicate ids, edges to nodes that do not exist and Start or End data that is not theirs", async () => {
    const bad = importedDoc();
    bad.nodes.push(codeNode("a", "other"));
    bad.edges.push({ id: "e1", source: "ghost", target: "nowhere" });
    bad.nodes[0] = { id: "start", type: "start", position: at, data: { label: "Start", code: "x" } };
    expect((await codes(bad)).sort()).toEqual(
      [
        "DUPLICATE_EDGE_ID",
        "DUPLICATE_NODE_ID",
        "EDGE_SOURCE_UNKNOWN",
        "EDGE_TARGET_UNKNOWN",
        "NODE_DATA_INVALID",
      ].sort(),
    );
  });
});
