// Our runtime against the same graph written by hand in LangGraph.js, in one process, with the
// same checkpointer (MemorySaver) and durability ("sync"). Prints median times and the ratio.
// Run: npm run build && node bench/engine.mjs [iterations]
import { Annotation, END, MemorySaver, START, StateGraph } from "@langchain/langgraph";
import { loadConfig } from "../backend/dist/core/config.js";
import { runStream } from "../backend/dist/engine/runtime/runtime.js";
import { benchArgs, wholeNumber } from "./bench-args.mjs";

const USAGE = "node bench/engine.mjs [iterations, default 200]   (after npm run build)";
const iterations = wholeNumber(USAGE, "iterations", benchArgs(USAGE, {}, { positionals: 1 }).positionals[0], 200);
const engine = loadConfig({}, false).engine;
const at = { x: 0, y: 0 };

// Condition nodes with one default label: in-process work only, so the numbers show the
// runtime's own cost (events, ledger keys, visit counts) rather than any I/O.
function ours(ids, edges) {
  return {
    name: "bench",
    state: [{ name: "log", type: "list", reducer: "append" }],
    nodes: ids.map((id) => ({
      id,
      type: id.startsWith("j") ? "join" : "condition",
      position: at,
      data: id.startsWith("j") ? {} : { rules: [], default_label: "next" },
    })),
    edges,
  };
}

function chain(n) {
  const ids = Array.from({ length: n }, (_, i) => `n${i}`);
  const edges = [{ id: "s", source: "start", target: "n0" }];
  for (let i = 0; i < n; i++)
    edges.push({ id: `e${i}`, source: `n${i}`, target: i + 1 < n ? `n${i + 1}` : "end", label: "next" });
  const hand = () => {
    const g = new StateGraph(
      Annotation.Root({
        log: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
        route: Annotation({ reducer: (a, b) => ({ ...a, ...b }), default: () => ({}) }),
      }),
    );
    for (const id of ids) g.addNode(id, async () => ({ route: { [id]: "next" } }));
    g.addEdge(START, "n0");
    for (const [i, id] of ids.entries()) {
      g.addConditionalEdges(id, (s) => s.route[id], { next: i + 1 < n ? ids[i + 1] : END });
    }
    return g.compile({ checkpointer: new MemorySaver() });
  };
  return { name: `${n}-node chain`, document: ours(ids, edges), hand: hand() };
}

function fanOut(width) {
  const ids = [...Array.from({ length: width }, (_, i) => `b${i}`), "j"];
  const edges = [];
  for (let i = 0; i < width; i++) {
    edges.push(
      { id: `s${i}`, source: "start", target: `b${i}` },
      { id: `e${i}`, source: `b${i}`, target: "j", label: "next" },
    );
  }
  edges.push({ id: "end", source: "j", target: "end" });
  const hand = () => {
    const g = new StateGraph(
      Annotation.Root({ route: Annotation({ reducer: (a, b) => ({ ...a, ...b }), default: () => ({}) }) }),
    );
    for (let i = 0; i < width; i++) g.addNode(`b${i}`, async () => ({ route: { [`b${i}`]: "next" } }));
    g.addNode("j", async () => ({}), { defer: true });
    for (let i = 0; i < width; i++) {
      g.addEdge(START, `b${i}`);
      g.addConditionalEdges(`b${i}`, (s) => s.route[`b${i}`], { next: "j" });
    }
    g.addEdge("j", END);
    return g.compile({ checkpointer: new MemorySaver() });
  };
  return { name: `${width}-way fan-out + join`, document: ours(ids, edges), hand: hand() };
}

async function time(fn) {
  const samples = [];
  for (let i = 0; i < iterations; i++) {
    const started = process.hrtime.bigint();
    await fn(i);
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

for (const scenario of [chain(10), fanOut(8)]) {
  const checkpointer = new MemorySaver();
  const runOurs = async (i) => {
    const run = runStream(scenario.document, {}, { engine, checkpointer, runId: `ours-${i}` });
    let next = await run.next();
    while (!next.done) next = await run.next();
    if (next.value.status !== "ok") throw new Error(`run ended ${next.value.status}`);
  };
  const runHand = async (i) => {
    const stream = await scenario.hand.stream(
      {},
      { configurable: { thread_id: `hand-${i}` }, streamMode: ["custom", "values"], durability: "sync" },
    );
    for await (const _ of stream);
  };
  // Warm both up (compilation, JIT) before measuring.
  for (let i = 0; i < 20; i++) {
    await runOurs(`w${i}`);
    await runHand(`w${i}`);
  }
  const hand = await time(runHand);
  const mine = await time(runOurs);
  console.log(
    `${scenario.name}: LangGraph.js by hand ${hand.toFixed(2)} ms, Superstep ${mine.toFixed(2)} ms, ratio ${(mine / hand).toFixed(2)}x (median of ${iterations}; target ≤ 1.30x)`,
  );
}
