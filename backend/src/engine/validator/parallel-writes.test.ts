import { Annotation, END, type LangGraphRunnableConfig, Send, START, StateGraph } from "@langchain/langgraph";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  codeNode,
  conditionLoops,
  type Doc,
  edgeOf,
  joinPhases,
  joinRings,
  ladder,
  layeredDag,
  routerMesh,
  skipChain,
} from "../../../test/adversarial-workflows.js";
import {
  collect,
  engineConfig,
  eventsOf,
  httpTool,
  type Receiver,
  startReceiver,
} from "../../../test/engine-harness.js";
import { runStream } from "../runtime/runtime.js";
import { extraSteps, findParallelWriters, PARALLEL_WRITE_BUDGET } from "./parallel-writes.js";
import { type Problem, type ValidationEnvironment, validateWorkflow, writesOf } from "./validator.js";

const environment: ValidationEnvironment = {
  codeMode: "wasm",
  providers: {
    openai: { configured: true, variable: "OPENAI_API_KEY" },
    anthropic: { configured: true, variable: "ANTHROPIC_API_KEY" },
  },
  serverKeyNeeded: () => false,
  smtpConfigured: true,
  maxSubgraphDepth: 3,
  resolveWorkflow: async () => undefined,
  credentialType: async () => undefined,
};

const at = { x: 0, y: 0 };
const condition = (id: string, labels: string[]) => ({
  id,
  type: "condition",
  position: at,
  data: {
    rules: labels.slice(1).map((label) => ({ label, conditions: [{ field: "a", operator: "is_empty" }] })),
    default_label: labels[0],
  },
});
const join = (id: string) => ({ id, type: "join", position: at, data: {} });
const forEach = (id: string, outputField: string) => ({
  id,
  type: "for_each",
  position: at,
  data: { items: "{{state.items}}", output_field: outputField },
});
const state = [
  { name: "a", type: "any" },
  { name: "items", type: "list" },
  { name: "out", type: "list" },
];
const doc = (nodes: unknown[], edges: unknown[]) => ({ name: "p", state, nodes, edges });
/** [source, target] or [source, target, label]. */
const edges = (...pairs: [string, string, string?][]) => pairs.map(([s, t, l]) => edgeOf(s, t, l));

async function clashes(document: object): Promise<Problem[]> {
  const result = await validateWorkflow(document, environment);
  return result.ok ? [] : result.problems.filter((p) => p.code === "PARALLEL_WRITE_NEEDS_REDUCER");
}
const pairs = async (document: object) => (await clashes(document)).map((p) => p.message.split(" can run")[0]);

describe("parallel writes", () => {
  describe("supersteps after a fan-out", () => {
    it("reports two branches writing a field in the same superstep, once, naming both nodes", async () => {
      const found = await clashes(
        doc(
          [codeNode("c1", ["a"]), codeNode("c2", ["a"]), codeNode("c3", ["a"])],
          edges(["start", "c1"], ["start", "c2"], ["start", "c3"]),
        ),
      );
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ node_id: "c1", path: "state.0.reducer" });
      expect(found[0]?.message).toMatch(/^c1 and c2 can run in the same superstep and both write "a"/);
    });

    it("follows chains of fan-outs and compares the supersteps of their branches", async () => {
      // start → {x, y}; x → {x1, x2}: x1 runs in superstep 2, as does y1 on start → y → y1 → y2.
      const chain = (writer: string) =>
        doc(
          [
            codeNode("x"),
            codeNode("x1", ["a"]),
            codeNode("x2"),
            codeNode("y"),
            codeNode("y1", writer === "y1" ? ["a"] : []),
            codeNode("y2", writer === "y2" ? ["a"] : []),
          ],
          edges(["start", "x"], ["start", "y"], ["x", "x1"], ["x", "x2"], ["y", "y1"], ["y1", "y2"]),
        );
      expect(await pairs(chain("y1"))).toEqual(["x1 and y1"]);
      expect(await pairs(chain("y2"))).toEqual([]);
    });

    it("runs a node reached by two branches once: the alternatives of a router after it stay exclusive", async () => {
      const document = doc(
        [
          codeNode("l"),
          codeNode("r"),
          codeNode("m"),
          condition("k", ["yes", "no"]),
          codeNode("x", ["a"]),
          codeNode("y", ["a"]),
        ],
        edges(["start", "l"], ["start", "r"], ["l", "m"], ["r", "m"], ["m", "k"], ["k", "x", "yes"], ["k", "y", "no"]),
      );
      expect(await pairs(document)).toEqual([]);
    });

    it("still lets such a merged node clash with a third branch", async () => {
      const document = doc(
        [codeNode("l"), codeNode("r"), codeNode("m", ["a"]), codeNode("o"), codeNode("o1", ["a"])],
        edges(["start", "l"], ["start", "r"], ["start", "o"], ["l", "m"], ["r", "m"], ["o", "o1"]),
      );
      expect(await pairs(document)).toEqual(["m and o1"]);
    });

    it("follows loops through a Condition: which supersteps the loop visits decides", async () => {
      // start → {p, q}; p → k, k loops through x (x runs in supersteps 3, 5, 7, …).
      const loop = (writer: string) =>
        doc(
          [
            codeNode("p"),
            condition("k", ["out", "again"]),
            codeNode("x", ["a"]),
            codeNode("q"),
            codeNode("q1", writer === "q1" ? ["a"] : []),
            codeNode("q2", writer === "q2" ? ["a"] : []),
          ],
          edges(
            ["start", "p"],
            ["start", "q"],
            ["p", "k"],
            ["k", "x", "again"],
            ["x", "k"],
            ["k", "end", "out"],
            ["q", "q1"],
            ["q1", "q2"],
          ),
        );
      expect(await pairs(loop("q2"))).toEqual(["q2 and x"]);
      expect(await pairs(loop("q1"))).toEqual([]);
    });

    it("lets a Decision write its own output field in its superstep", async () => {
      const decision = {
        id: "d",
        type: "decision",
        position: at,
        data: { model: "m", prompt: "pick", output_field: "a" },
      };
      const document = doc(
        [decision, codeNode("c", ["a"]), codeNode("y"), codeNode("n")],
        edges(["start", "d"], ["start", "c"], ["d", "y", "yes"], ["d", "n", "no"]),
      );
      expect(await pairs(document)).toEqual(["c and d"]);
    });
  });

  describe("joins", () => {
    it("runs a Join's successors after every branch, so they never clash with the branches", async () => {
      const document = doc(
        [codeNode("l", ["a"]), codeNode("r"), codeNode("r1"), codeNode("r2"), join("j"), codeNode("after", ["a"])],
        edges(["start", "l"], ["start", "r"], ["r", "r1"], ["r1", "r2"], ["l", "j"], ["r2", "j"], ["j", "after"]),
      );
      expect(await pairs(document)).toEqual([]);
    });

    it("starts the Joins waiting together in one superstep, so their successors can clash", async () => {
      const document = doc(
        [
          codeNode("b1"),
          codeNode("b2"),
          codeNode("b3"),
          codeNode("b4"),
          codeNode("b5"),
          join("j1"),
          join("j2"),
          codeNode("x", ["a"]),
          codeNode("y", ["a"]),
        ],
        edges(
          ["start", "b1"],
          ["start", "b2"],
          ["start", "b3"],
          ["start", "b4"],
          ["b4", "b5"],
          ["b1", "j1"],
          ["b2", "j1"],
          ["b3", "j2"],
          ["b5", "j2"],
          ["j1", "x"],
          ["j2", "y"],
        ),
      );
      expect(await pairs(document)).toEqual(["x and y"]);
    });

    it("never starts Joins of consecutive phases together", async () => {
      const result = await validateWorkflow(joinPhases(3, 2), environment);
      expect(result.ok).toBe(true);
    });

    it("analyses a Join inside a loop once per set of waiting Joins", async () => {
      // start → {l, r} → j → k; k loops back to l and r, or ends. After j, k and the two
      // branches run one at a time in each phase.
      const document = doc(
        [codeNode("l", ["a"]), codeNode("r"), join("j"), condition("k", ["done", "again"]), codeNode("w", ["a"])],
        edges(
          ["start", "l"],
          ["start", "r"],
          ["l", "j"],
          ["r", "j"],
          ["j", "k"],
          ["k", "w", "again"],
          ["w", "l"],
          ["w", "r"],
          ["k", "end", "done"],
        ),
      );
      const result = await validateWorkflow(document, environment);
      expect(result.ok).toBe(true);
    });
  });

  describe("For each", () => {
    const withForEach = (writer: string, bodyOutputs: string[] = ["a"]) =>
      doc(
        [
          forEach("f", "out"),
          codeNode("body", bodyOutputs),
          codeNode("after"),
          codeNode("c1", writer === "c1" ? ["out", "a"] : []),
          codeNode("c2", writer === "c2" ? ["out"] : []),
          codeNode("c3", writer === "c3" ? ["out"] : []),
        ],
        edges(
          ["start", "f"],
          ["f", "body", "item"],
          ["f", "after", "done"],
          ["start", "c1"],
          ["c1", "c2"],
          ["c2", "c3"],
        ),
      );

    it("does not count the body's writes: they go to the gather step", async () => {
      // The body runs in superstep 2, like c2; c1 runs with the For each itself.
      expect(await pairs(withForEach("c1"))).toEqual([]);
    });

    it("has the gather step write the output field one or two supersteps after the For each", async () => {
      // f in superstep 1; the gather step in 2 (empty list) or 3 (after the bodies).
      expect(await pairs(withForEach("c2"))).toEqual(["c2 and f"]);
      expect(await pairs(withForEach("c3"))).toEqual(["c3 and f"]);
      const later = withForEach("none");
      later.nodes.push(codeNode("c4", ["out"]));
      later.edges.push(edgeOf("c3", "c4"));
      expect(await pairs(later)).toEqual([]);
    });

    it("knows LangGraph may start a waiting Join while For each bodies run", async () => {
      // start → {a, f}; a → j; f done → d → j; j → x writes out. With a non-empty list the Join
      // is released in superstep 2 (only the bodies are scheduled), so x runs with the gather step.
      const document = doc(
        [codeNode("a0"), forEach("f", "out"), codeNode("body"), codeNode("d"), join("j"), codeNode("x", ["out"])],
        edges(
          ["start", "a0"],
          ["start", "f"],
          ["f", "body", "item"],
          ["f", "d", "done"],
          ["a0", "j"],
          ["d", "j"],
          ["j", "x"],
        ),
      );
      expect(await pairs(document)).toEqual(["f and x"]);
    });
  });

  describe("what LangGraph does (the model above relies on it)", () => {
    const trace = async (build: (g: StateGraph<never>, step: (name: string) => () => Promise<object>) => void) => {
      const log: [string, number][] = [];
      const graph = new StateGraph(
        Annotation.Root({ log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }) }),
      ) as unknown as StateGraph<never>;
      const step = (name: string) => async (_state?: unknown, config?: LangGraphRunnableConfig) => {
        log.push([name, config?.metadata?.langgraph_step as number]);
        return {};
      };
      build(graph, step as never);
      await (graph as unknown as { compile(): { invoke(input: object): Promise<unknown> } }).compile().invoke({});
      return log;
    };
    // biome-ignore lint/suspicious/noExplicitAny: the builder is typed by node names.
    type Loose = any;

    it("runs deferred nodes that wait at the same time together, once nothing else is scheduled", async () => {
      const log = await trace((g: Loose, step) => {
        g.addNode("a", step("a")).addNode("b", step("b")).addNode("b2", step("b2"));
        g.addNode("j1", step("j1"), { defer: true }).addNode("j2", step("j2"), { defer: true });
        g.addEdge(START, "a").addEdge(START, "b").addEdge("b", "b2").addEdge("a", "j1").addEdge("b2", "j2");
        g.addEdge("j1", END).addEdge("j2", END);
      });
      expect(log).toEqual([
        ["a", 1],
        ["b", 1],
        ["b2", 2],
        ["j1", 3],
        ["j2", 3],
      ]);
    });

    it("releases a deferred node when only Send tasks are scheduled", async () => {
      const log = await trace((g: Loose, step) => {
        g.addNode("a", step("a"))
          .addNode("f", step("f"))
          .addNode("body", step("body"))
          .addNode("gather", step("gather"));
        g.addNode("j", step("j"), { defer: true });
        g.addEdge(START, "a").addEdge(START, "f").addEdge("a", "j");
        g.addConditionalEdges("f", () => [new Send("body", {})], ["body", "gather"]);
        g.addEdge("body", "gather").addEdge("gather", "j").addEdge("j", END);
      });
      expect(log).toEqual([
        ["a", 1],
        ["f", 1],
        ["body", 2],
        ["j", 2],
        ["gather", 3],
        ["j", 4],
      ]);
    });

    describe("in a Superstep run", () => {
      let receiver: Receiver;
      beforeAll(async () => {
        receiver = await startReceiver(() => ({ json: "done" }));
      });
      afterAll(() => receiver.close());

      it("holds a Join the For each leads to until the For each is done (the early release is a no-op)", async () => {
        // The same shape as "knows LangGraph may start a waiting Join while For each bodies run".
        // LangGraph still releases the Join early; the Join sees the For each pending and waits,
        // so it runs once, after the For each's done branch, and x runs once after it. The
        // analysis above keeps modelling the early release: it can only over-report clashes.
        const document = {
          name: "early join",
          state: [
            { name: "items", type: "list" },
            { name: "out", type: "list", reducer: "append" },
          ],
          nodes: [
            httpTool("a0", `${receiver.url}/a0`, "out"),
            forEach("f", "out"),
            httpTool("body", `${receiver.url}/body`, "items"),
            httpTool("d", `${receiver.url}/d`, "out"),
            join("j"),
            httpTool("x", `${receiver.url}/x`, "out"),
          ],
          edges: edges(
            ["start", "a0"],
            ["start", "f"],
            ["f", "body", "item"],
            ["f", "d", "done"],
            ["a0", "j"],
            ["d", "j"],
            ["j", "x"],
          ),
        };
        expect((await validateWorkflow(document, environment)).ok).toBe(true);
        const { events } = await collect(runStream(document, { items: [1] }, { engine: engineConfig() }));
        const steps = (id: string) => eventsOf(events, "node_finished", id).map((e) => e.superstep as number);
        expect(steps("j")).toHaveLength(1);
        expect(steps("x")).toHaveLength(1);
        expect(steps("j")[0]).toBeGreaterThan(steps("d")[0] as number);
        expect(steps("x")[0]).toBeGreaterThan(steps("j")[0] as number);
      });
    });
  });

  describe("work", () => {
    /** The analysis inputs of a valid document, to call it directly. */
    async function inputs(document: Doc) {
      const result = await validateWorkflow(document, environment);
      if (!result.ok) throw new Error(JSON.stringify(result.problems));
      const { workflow } = result;
      const writes = new Map([...workflow.nodes.values()].map((n) => [n.id, writesOf(n)]));
      const replaceFields = new Set(workflow.document.state.filter((f) => !f.reducer).map((f) => f.name));
      return { model: workflow.model, writes, replaceFields, forEachBodies: workflow.forEachBodies };
    }
    /** One phase's bound: supersteps × (nodes + edges + writes), as docs/en/validation.md states. */
    const phaseBound = (document: Doc) => {
      const nodes = document.nodes.length + 2;
      const writes = document.nodes.reduce(
        (n, node) => n + ((node.data.outputs as string[] | undefined)?.length ?? 1),
        0,
      );
      return (nodes + extraSteps(nodes) + 1) * (nodes + document.edges.length + writes);
    };

    it("skips the walk when no replace field has two writers", async () => {
      const analysis = await findParallelWriters(await inputs(ladder(30, 32, [[0, 0]])));
      expect(analysis).toEqual({ clashes: [], operations: 0, phases: 0, approximate: false });
    });

    it("walks a 30 × 32 ladder (the finding's 961 nodes, 1,858 grid edges) once per node", async () => {
      const document = ladder(30, 32, [
        [0, 0],
        [29, 31],
      ]);
      const analysis = await findParallelWriters(await inputs(document));
      expect(analysis.clashes).toEqual([]);
      // Every node runs in exactly one superstep: one visit, its edges and its writes.
      expect(analysis.operations).toBeLessThanOrEqual(2 * (document.nodes.length + document.edges.length));
    });

    it("finds a clash on a ladder's anti-diagonal and stops there", async () => {
      const found = await clashes(
        ladder(30, 32, [
          [0, 5],
          [5, 0],
        ]),
      );
      expect(found.map((p) => p.message.split(" can run")[0])).toEqual(["g0_5 and g5_0"]);
    });

    it("walks the finding's 160-node chain with skips (i → i+1 … i+5) within the bound", async () => {
      const document = skipChain(160, 5, [0, 159]);
      const analysis = await findParallelWriters(await inputs(document));
      expect(analysis.clashes).toEqual([]);
      // Node i can run in supersteps i/5 … i: at most 160 supersteps × (nodes + edges + writes).
      expect(analysis.operations).toBeLessThanOrEqual(160 * (162 + document.edges.length + 2));
    });

    it.each([
      ["a 1000-node chain with skips (4,986 edges)", skipChain(1000, 5, [0, 999])],
      ["layers of 5 joined completely (4,980 edges)", layeredDag(200, 5)],
      ["a ring of 250 Conditions with For each nodes", conditionLoops(250)],
      ["a mesh of 500 Conditions beside a 498-node chain", routerMesh(500, 9, 498)],
    ])("stays within one phase's bound on %s", async (_name, document) => {
      const result = await validateWorkflow(document, environment);
      expect(result.ok).toBe(true);
      expect(result.stats?.parallelWriteOperations).toBeLessThanOrEqual(phaseBound(document));
    });

    it("walks consecutive Join phases one by one, each once", async () => {
      const document = joinPhases(40, 20);
      const analysis = await findParallelWriters(await inputs(document));
      expect(analysis).toMatchObject({ clashes: [], phases: 41, approximate: false });
      expect(analysis.operations).toBeLessThanOrEqual(2 * (document.nodes.length + document.edges.length) + 41 * 2);
    });

    it("stops walking phase by phase at the budget when the Joins' phases repeat only after 2×10^11 phases", async () => {
      const document = joinRings([2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31]);
      const result = await validateWorkflow(document, environment);
      const found = result.ok ? [] : result.problems;
      // One problem per ring's field, each saying it could not be proven.
      expect(found).toHaveLength(11);
      expect(
        found.every((p) => p.code === "PARALLEL_WRITE_NEEDS_REDUCER" && p.message.includes("too many Join phases")),
      ).toBe(true);
      expect(result.stats?.parallelWriteOperations).toBeLessThanOrEqual(
        PARALLEL_WRITE_BUDGET + 2 * phaseBound(document),
      );
    });

    it("stands in one combined phase for the rest when the budget runs out, and says so", async () => {
      // Consecutive phases never run together; started all at once they seem to.
      const document = joinPhases(3, 2);
      const exact = await findParallelWriters(await inputs(document));
      expect(exact.clashes).toEqual([]);
      const combined = await findParallelWriters(await inputs(document), { budget: 0 });
      expect(combined.approximate).toBe(true);
      expect(combined.clashes).toEqual([{ field: "a", nodes: ["p1_w", "p2_w"], approximate: true }]);
    });
  });
});
