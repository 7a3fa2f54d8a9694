import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { nestedSubgraphs } from "../../../test/adversarial-workflows.js";
import { collect, conditionNode, edge, engineConfig } from "../../../test/engine-harness.js";
import { runStream, validationEnvironment } from "../runtime/runtime.js";
import { validateWorkflow } from "../validator/validator.js";
import { COMPILED_GRAPHS_KEPT, compiledGraphsKept, compileWorkflow, withCheckpointer } from "./compiler.js";

describe("compiler", () => {
  it("compiles a child shared by many Subgraph nodes once, however deep the nesting", async () => {
    // Five levels of 20 Subgraph nodes: 20^5 keys to compute if each node recomputed its child's.
    const { top, saved } = nestedSubgraphs(5, 20);
    const resolve = async (id: string, version: number) => saved[`${id}@${version}`];
    const result = await validateWorkflow(top, validationEnvironment(engineConfig(), resolve));
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const graph = compileWorkflow(result.workflow);
    expect(compileWorkflow(result.workflow)).toBe(graph);
    const child = result.workflow.subgraphs.get("s0");
    expect(child && result.workflow.subgraphs.get("s19")).toBe(child);
  });
});

describe("routing by Command", () => {
  const at = { x: 0, y: 0 };
  const append = (id: string) => ({
    id,
    type: "code",
    position: at,
    data: { language: "javascript", code: `function main(s) { return { log: ["${id}"] }; }` },
  });
  const document = {
    name: "routed",
    state: [
      { name: "score", type: "number" },
      { name: "log", type: "list", reducer: "append" },
    ],
    nodes: [
      conditionNode("k", "high", { field: "score", operator: "gte", value: 10 }, "low"),
      append("hi"),
      append("lo"),
    ],
    edges: [edge("start", "k"), edge("k", "hi", "high"), edge("k", "lo", "low")],
  };

  it("leaves a Condition's choice in LangGraph's branch channel, where a paused run resumes from it", async () => {
    const checkpointer = new MemorySaver();
    const engine = engineConfig();
    const step = (input: Record<string, unknown> | null, resume: boolean) =>
      collect(
        runStream(document, input, {
          engine,
          runId: "routed",
          checkpointer,
          mode: "step",
          ...(resume ? { resume: { kind: "continue" as const } } : {}),
        }),
      );
    expect((await step({ score: 12 }, false)).outcome.status).toBe("paused"); // after k
    // The checkpoint after k holds what a conditional edge wrote before k returned a Command: a
    // write of k's id to the chosen node's branch channel, and nothing for the other one.
    const tuple = await checkpointer.getTuple({ configurable: { thread_id: "routed" } });
    const channels = tuple?.checkpoint.channel_values ?? {};
    expect(channels["branch:to:hi"]).toBe("k");
    expect(Object.hasOwn(channels, "branch:to:lo")).toBe(false);
    const environment = validationEnvironment(engine);
    const validated = await validateWorkflow(structuredClone(document), environment);
    if (!validated.ok) throw new Error("invalid");
    const paused = await compileWorkflow(validated.workflow).getState(
      withCheckpointer({ configurable: { thread_id: "routed" } }, checkpointer),
    );
    expect(paused.next).toEqual(["hi"]);
    const last = await step(null, true);
    expect(last.outcome).toMatchObject({ status: "ok", state: { log: ["hi"] } });
  });
});

describe("compiled graph cache", () => {
  const document = {
    name: "cached",
    state: [{ name: "n", type: "number", default: 1 }],
    nodes: [
      {
        id: "inc",
        type: "code",
        position: { x: 0, y: 0 },
        data: { language: "javascript", code: "function main(s) { return { n: s.n + 1 }; }" },
      },
    ],
    edges: [edge("start", "inc")],
  };

  it("serves runs with different checkpointers from one compiled graph, each run writing to its own", async () => {
    const environment = validationEnvironment(engineConfig());
    const first = await validateWorkflow(structuredClone(document), environment);
    const second = await validateWorkflow(structuredClone(document), environment);
    if (!first.ok || !second.ok) throw new Error("invalid");
    // Separately validated copies of the same content share the compiled graph.
    expect(compileWorkflow(second.workflow)).toBe(compileWorkflow(first.workflow));

    const savers = [new MemorySaver(), new MemorySaver()];
    for (const [i, checkpointer] of savers.entries()) {
      const { outcome } = await collect(
        runStream(document, {}, { engine: engineConfig(), checkpointer, runId: `cache-${i}` }),
      );
      expect(outcome).toMatchObject({ status: "ok", state: { n: 2 } });
    }
    const threads = async (saver: MemorySaver) => {
      const ids = new Set<string>();
      for await (const tuple of saver.list({})) ids.add(tuple.config.configurable?.thread_id as string);
      return [...ids];
    };
    expect(await threads(savers[0] as MemorySaver)).toEqual(["cache-0"]);
    expect(await threads(savers[1] as MemorySaver)).toEqual(["cache-1"]);
  });
});

describe("compiled graph cache bound", () => {
  it("keeps at most COMPILED_GRAPHS_KEPT graphs, dropping the least recently used first", async () => {
    const environment = validationEnvironment(engineConfig());
    const validated = async (i: number) => {
      const result = await validateWorkflow(
        { name: `bound ${i}`, state: [], nodes: [], edges: [edge("start", "end")] },
        environment,
      );
      if (!result.ok) throw new Error(JSON.stringify(result.problems));
      return result.workflow;
    };
    const first = compileWorkflow(await validated(0));
    const kept = compileWorkflow(await validated(1));
    for (let i = 2; i < COMPILED_GRAPHS_KEPT + 50; i++) {
      compileWorkflow(await validated(i));
      // Used all along, so never the least recently used one.
      expect(compileWorkflow(await validated(1))).toBe(kept);
    }
    expect(compiledGraphsKept()).toBe(COMPILED_GRAPHS_KEPT);
    // The first one was dropped: compiling its content again builds a new graph.
    expect(compileWorkflow(await validated(0))).not.toBe(first);
    expect(compiledGraphsKept()).toBe(COMPILED_GRAPHS_KEPT);
  });
});
