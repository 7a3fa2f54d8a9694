// What a Code node costs: cold (the first call of a language: a child starts and loads its
// interpreter; for Python, with and without the memory snapshot a server stores for its next
// start) and warm (a child was ready), for JavaScript (QuickJS) and Python (Pyodide), as
// runInSandbox round trips and as the Code node's wall time (`duration_ms`) in real runs of the
// engine runtime in this process. Prints figures; asserts nothing.
// Run: npm run build && node bench/sandbox.mjs [calls]   (STUDIO_CODE_* settings from the environment)
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySaver } from "@langchain/langgraph";
import { loadConfig } from "../backend/dist/core/config.js";
import { runStream } from "../backend/dist/engine/runtime/runtime.js";
import { runInSandbox } from "../backend/dist/engine/sandbox/sandbox.js";
import { benchArgs, wholeNumber } from "./bench-args.mjs";

const USAGE =
  "node bench/sandbox.mjs [calls, default 50]   (after npm run build; STUDIO_CODE_* settings from the environment)";
const calls = wholeNumber(USAGE, "calls", benchArgs(USAGE, {}, { positionals: 1 }).positionals[0], 50);
// Without the pool (an older build), every call starts its own child: "warm" figures then show
// that, and there is nothing to wait for or stop.
const pool = await import("../backend/dist/engine/sandbox/sandbox-pool.js").catch(() => null);
// Only the Code node's own settings come from the environment (STUDIO_CODE_WARM=2 node bench/…).
const codeSettings = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => name.startsWith("STUDIO_CODE_")),
);
const engine = loadConfig(codeSettings, false).engine;
// The snapshot store of this bench's own: a server's is STUDIO_DATA_DIR/cache.
const store = mkdtempSync(join(tmpdir(), "bench-sandbox-store-"));
engine.codeSnapshotDir = store;
const emptyStore = () => {
  rmSync(store, { recursive: true, force: true });
};
const limits = { timeoutMs: engine.codeTimeoutMs, memoryMb: engine.codeMemoryMb };
const at = { x: 0, y: 0 };

const CODE = {
  javascript: `function main(state) {
  const words = state.text.split(/\\s+/).filter(Boolean);
  return { stats: { words: words.length, longest: words.reduce((a, b) => (b.length > a.length ? b : a), "") } };
}`,
  python: `import json, re

def main(state):
    words = re.findall(r"\\w+", state["text"])
    return {"stats": {"words": len(words), "longest": max(words, key=len)}}
`,
};
const STATE = { text: "the quick brown fox jumps over the lazy dog" };

const ms = (value) => `${value.toFixed(1)} ms`;
function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return `p50 ${ms(percentile(sorted, 50))}, p95 ${ms(percentile(sorted, 95))}, max ${ms(sorted.at(-1))} (${samples.length} calls)`;
}
const target = (language) => (language === "python" ? 50 : 10);
const WARM_UP_CALLS = { javascript: 20, python: 0 };

async function reset() {
  await pool?.stopSandboxPool();
}
// Without the pool, the pause a child loaded ahead (the older spare Python child) needs: twice the
// cold call.
const pauseWithoutPool = {};
/** Until a child of the language is ready (the pause between calls of a person or a trigger). */
async function ready(language) {
  if (pool) await pool.sandboxPoolReady(language, limits.memoryMb);
  else await new Promise((resolve) => setTimeout(resolve, pauseWithoutPool[language] ?? 0));
}

async function roundTrip(language) {
  const started = performance.now();
  const result = await runInSandbox({ language, code: CODE[language], args: [STATE] }, limits, undefined, {
    warm: engine.codeWarm,
    warmMax: engine.codeWarmMax,
    snapshotDir: engine.codeSnapshotDir,
  });
  if (!result.ok) throw new Error(`${language}: ${result.code} ${result.message}`);
  return performance.now() - started;
}

function codeWorkflow(language) {
  return {
    name: `one ${language} Code node`,
    state: [
      { name: "text", type: "string" },
      { name: "stats", type: "object" },
    ],
    nodes: [{ id: "code", type: "code", position: at, data: { language, code: CODE[language], outputs: ["stats"] } }],
    edges: [
      { id: "e1", source: "start", target: "code" },
      { id: "e2", source: "code", target: "end" },
    ],
  };
}

let runs = 0;
/**
 * Runs a document to its end; returns each node's duration_ms: its last execution's (`last`), and
 * every execution's (`all`: a For each body's, one per item).
 */
async function run(document, input = {}) {
  const last = {};
  const all = {};
  const stream = runStream(document, input, { engine, checkpointer: new MemorySaver(), runId: `bench-${runs++}` });
  let next = await stream.next();
  for (; !next.done; next = await stream.next()) {
    if (next.value.type !== "node_finished") continue;
    const { node_id: node, data } = next.value;
    last[node] = data.duration_ms;
    all[node] = [...(all[node] ?? []), data.duration_ms];
  }
  if (next.value.status !== "ok") throw new Error(`run ended ${next.value.status}`);
  return { last, all };
}

const [load1] = loadavg();
console.log(
  `${availableParallelism()} cores, load average ${load1.toFixed(2)} at start; STUDIO_CODE_MEMORY=${limits.memoryMb}, ` +
    `STUDIO_CODE_WARM=${engine.codeWarm ?? "(none)"}, STUDIO_CODE_WARM_MAX=${engine.codeWarmMax ?? "(none)"}; ` +
    `${pool ? "warm pool" : "no pool (a child per call)"}`,
);

for (const language of ["javascript", "python"]) {
  console.log(`\n${language} (target once warm: ≤ ${target(language)} ms p95)`);

  await reset();
  emptyStore();
  const cold = await roundTrip(language);
  pauseWithoutPool[language] = 2 * cold;
  console.log(
    `  runInSandbox, first call of the process (cold${language === "python" ? ", no snapshot stored" : ""}): ${ms(cold)}`,
  );
  if (language === "python") {
    // A restart: the snapshot the first start stored is where the first child starts from.
    await reset();
    console.log(`  runInSandbox, first call after a restart (cold, snapshot stored): ${ms(await roundTrip(language))}`);
  }
  // A JavaScript child serves many calls and its interpreter's hot code is optimised over its first
  // ones; a Python child serves one call, so there is nothing to warm but the pool itself.
  for (let i = 0; i < WARM_UP_CALLS[language]; i++) await roundTrip(language);
  const paced = [];
  for (let i = 0; i < calls; i++) {
    await ready(language);
    paced.push(await roundTrip(language));
  }
  console.log(
    `  runInSandbox, warm (a child ready${WARM_UP_CALLS[language] ? `, after ${WARM_UP_CALLS[language]} calls` : ""}): ${summary(paced)}`,
  );
  const backToBack = [];
  for (let i = 0; i < calls; i++) backToBack.push(await roundTrip(language));
  console.log(`  runInSandbox, back to back (no pause between calls): ${summary(backToBack)}`);

  await reset();
  const document = codeWorkflow(language);
  console.log(
    `  Code node in a run, first run of the process (cold${language === "python" ? ", snapshot stored" : ""}): ${ms((await run(document, STATE)).last.code)}`,
  );
  for (let i = 0; i < WARM_UP_CALLS[language]; i++) await run(document, STATE);
  const nodes = [];
  for (let i = 0; i < calls; i++) {
    await ready(language);
    nodes.push((await run(document, STATE)).last.code);
  }
  console.log(`  Code node in a run, warm: ${summary(nodes)}`);
  const nodesBackToBack = [];
  for (let i = 0; i < calls; i++) nodesBackToBack.push((await run(document, STATE)).last.code);
  console.log(`  Code node in a run, runs back to back: ${summary(nodesBackToBack)}`);
}

// The issue's other case: a workflow with three Python steps, run again and again with a pause
// between runs (a person, a schedule) until the pool has what it keeps ready.
await reset();
const STEPS = ["first", "second", "third"];
const CHAIN = ["start", ...STEPS, "end"];
const threeSteps = {
  name: "three Python Code nodes in a row",
  state: [
    { name: "text", type: "string" },
    { name: "stats", type: "object" },
  ],
  nodes: STEPS.map((id) => ({
    id,
    type: "code",
    position: at,
    data: { language: "python", code: CODE.python, outputs: ["stats"] },
  })),
  edges: CHAIN.slice(1).map((target, i) => ({ id: `e${i}`, source: CHAIN[i], target })),
};
console.log(
  `\nthree Python Code nodes in a row, runs with a pause until the pool is ready (sum of the nodes' duration_ms)`,
);
const threeStepRuns = [];
for (let i = 1; i <= Math.max(10, Math.min(calls, 20)); i++) {
  if (i > 1) await ready("python");
  const durations = (await run(threeSteps, STATE)).last;
  const sum = STEPS.reduce((total, id) => total + durations[id], 0);
  if (i <= 3) console.log(`  run ${i}: ${STEPS.map((id) => `${durations[id]}`).join(" + ")} = ${sum} ms`);
  else threeStepRuns.push(sum);
}
console.log(`  runs 4 and later: ${summary(threeStepRuns).replace("calls", "runs")}`);
// A run's Python steps share one child (decision 0003), so runs back to back use one child each.
const threeBackToBack = [];
for (let i = 0; i < Math.max(10, Math.min(calls, 20)); i++) {
  const durations = (await run(threeSteps, STATE)).last;
  threeBackToBack.push(STEPS.reduce((total, id) => total + durations[id], 0));
}
console.log(`  runs back to back (no pause): ${summary(threeBackToBack).replace("calls", "runs")}`);

// A For each over a Python Code body: every item is a call of the same run.
const FOR_EACH_ITEMS = 20;
const forEachDocument = {
  name: "a For each over a Python Code node",
  state: [
    { name: "items", type: "list" },
    { name: "results", type: "list" },
    { name: "scratch", type: "any" },
  ],
  nodes: [
    { id: "each", type: "for_each", position: at, data: { items: "{{state.items}}", output_field: "results" } },
    {
      id: "body",
      type: "code",
      position: at,
      data: { language: "python", code: "def main(state, item, index):\n    return {'scratch': item * 2}\n" },
    },
  ],
  edges: [
    { id: "e1", source: "start", target: "each" },
    { id: "e2", source: "each", target: "body", label: "item" },
    { id: "e3", source: "each", target: "end", label: "done" },
  ],
};
console.log(
  `\na For each over ${FOR_EACH_ITEMS} items with a Python Code body, one run after another (the pool ready)`,
);
for (let i = 1; i <= 3; i++) {
  await ready("python");
  const started = performance.now();
  const { all } = await run(forEachDocument, { items: Array.from({ length: FOR_EACH_ITEMS }, (_, n) => n) });
  console.log(
    `  run ${i}: ${ms(performance.now() - started)} in all; items ${summary(all.body).replace("calls", "items")}`,
  );
}

// The issue's case: the fan-out-join example (a JavaScript and a Python branch, then JavaScript),
// five runs in a row, as a studio runs them.
const example = JSON.parse(readFileSync(new URL("../examples/fan-out-join.json", import.meta.url), "utf8"));
for (const start of ["a server's first start (no snapshot stored)", "after a restart (snapshot stored)"]) {
  await reset();
  if (start.startsWith("a server's first")) emptyStore();
  console.log(
    `\nexamples/fan-out-join.json, five runs in a row, ${start} (node duration_ms: words JS, letters Python, summarise JS)`,
  );
  for (let i = 1; i <= 5; i++) {
    const started = performance.now();
    const durations = (await run(example)).last;
    console.log(
      `  run ${i}: words ${durations.words} ms, letters ${durations.letters} ms, summarise ${durations.summarise} ms; run ${ms(performance.now() - started)}`,
    );
  }
}
await reset();
emptyStore();
