import { describe, expect, it } from "vitest";
import { workflowDocument } from "../../schemas/workflow.schema.js";
import { validateWorkflow } from "../validator/validator.js";
import { runnerGraphLine } from "./graph-inspection.js";
import { buildImportedWorkflow, safeNodeIds } from "./imported-workflow.js";

const SOURCE = "import os\n\n\ndef call_model(state):\n    return state\n\n\ndef helper():\n    pass\n";

function line(overrides: object = {}) {
  return runnerGraphLine.parse({
    type: "graph",
    id: "agent",
    name: "ReAct Agent",
    nodes: [
      { id: "__start__", name: "__start__", start: true, end: false, subgraph: null, source: null },
      { id: "call_model", name: "call_model", subgraph: null, source: { file: "src/graph.py", line: 4 } },
      { id: "tools", name: "tools", subgraph: null, source: null },
      { id: "research:plan step", name: "plan step", subgraph: "research", source: { file: "gone.py", line: 3 } },
      { id: "research:act", name: "act", subgraph: "research", source: null },
      { id: "__end__", name: "__end__", start: false, end: true, subgraph: null, source: null },
    ],
    edges: [
      { source: "__start__", target: "call_model", conditional: false, label: null },
      { source: "call_model", target: "tools", conditional: true, label: null },
      { source: "call_model", target: "research:plan step", conditional: true, label: "plan" },
      { source: "call_model", target: "__end__", conditional: true, label: null },
      { source: "tools", target: "call_model", conditional: false, label: null },
      { source: "research:plan step", target: "research:act", conditional: false, label: null },
      { source: "research:act", target: "__end__", conditional: false, label: null },
      { source: "nowhere", target: "__end__", conditional: false, label: null },
    ],
    subgraphs: [{ id: "research", nodes: ["research:plan step", "research:act"] }],
    context_schema: { type: "object", properties: { model: { type: "string" } } },
    ...overrides,
  });
}

const build = (overrides: object = {}) =>
  buildImportedWorkflow({
    line: line(overrides),
    job: { id: "job-1", env_names: ["OPENAI_API_KEY"] },
    graph: { id: "agent", spec: "./src/graph.py:graph" },
    readSource: (file) => (file === "src/graph.py" ? SOURCE : null),
  });

const validation = {
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

describe("imported workflow", () => {
  it("turns __start__ and __end__ into Start and End, every other node into a Code node naming the graph's node", () => {
    const document = build();
    expect(document.nodes.map((n) => [n.id, n.type])).toEqual([
      ["start", "start"],
      ["call_model", "code"],
      ["tools", "code"],
      ["research_plan_step", "code"],
      ["research_act", "code"],
      ["end", "end"],
    ]);
    expect(document.nodes[0]?.data).toEqual({ label: "Start" });
    expect(document.nodes[1]?.data).toEqual({
      label: "call_model",
      language: "python",
      code: "def call_model(state):\n    return state",
      imported: { node: "call_model", source: { file: "src/graph.py", line: 4 }, subgraph: null },
    });
    expect(document.nodes[2]?.data.code).toBe("# tools: library code, no source in the repository");
    // A source file that cannot be read is said the same way.
    expect(document.nodes[3]?.data).toMatchObject({
      label: "plan step",
      code: "# plan step: library code, no source in the repository",
      imported: { node: "research:plan step", subgraph: "research" },
    });
    expect(document.imported).toEqual({
      job_id: "job-1",
      graph_id: "agent",
      spec: "./src/graph.py:graph",
      env_names: ["OPENAI_API_KEY"],
      context_schema: { type: "object", properties: { model: { type: "string" } } },
    });
    expect(document.name).toBe("ReAct Agent");
    expect(workflowDocument.safeParse(document).success).toBe(true);
  });

  it("keeps conditional edges and labels, and drops an edge to a node the graph does not have", () => {
    expect(build().edges).toEqual([
      { id: "e1", source: "start", target: "call_model" },
      { id: "e2", source: "call_model", target: "tools", conditional: true },
      { id: "e3", source: "call_model", target: "research_plan_step", label: "plan", conditional: true },
      { id: "e4", source: "call_model", target: "end", conditional: true },
      { id: "e5", source: "tools", target: "call_model" },
      { id: "e6", source: "research_plan_step", target: "research_act" },
      { id: "e7", source: "research_act", target: "end" },
    ]);
  });

  it("lays the nodes out left to right, each in its own place, a subgraph's nodes side by side", () => {
    const document = build();
    const at = new Map(document.nodes.map((n) => [n.id, n.position]));
    const places = document.nodes.map((n) => `${n.position.x},${n.position.y}`);
    expect(new Set(places).size).toBe(places.length);
    expect((at.get("start")?.x ?? 0) < (at.get("call_model")?.x ?? 0)).toBe(true);
    expect((at.get("call_model")?.x ?? 0) < (at.get("end")?.x ?? 0)).toBe(true);
    const plan = at.get("research_plan_step");
    const act = at.get("research_act");
    expect(plan && act && plan.x < act.x).toBe(true);
  });

  it("passes the validator, which checks an imported document's structure only", async () => {
    const result = await validateWorkflow(build(), validation);
    expect(result.ok, JSON.stringify(result)).toBe(true);
  });

  it("makes node ids safe for the document: allowed characters, 64 at most, unique, never start or end", () => {
    const ids = safeNodeIds(["a:b c", "a_b_c", "start", "end", "x".repeat(80), "x".repeat(70), "é"]);
    expect([...ids.values()]).toEqual([
      "a_b_c",
      "a_b_c_2",
      "start_2",
      "end_2",
      "x".repeat(64),
      `${"x".repeat(62)}_2`,
      "_",
    ]);
    for (const id of ids.values()) expect(id).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });

  it("uses the name asked for, else the graph id when the graph has no name", () => {
    expect(build({ name: null }).name).toBe("agent");
    const named = buildImportedWorkflow({
      line: line(),
      job: { id: "j", env_names: [] },
      graph: { id: "agent", spec: "s" },
      name: "Mine",
      readSource: () => null,
    });
    expect(named.name).toBe("Mine");
  });
});
