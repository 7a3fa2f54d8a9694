// Forking a long run: a 100-superstep run (a chain of 100 Condition nodes), then forks from its
// superstep 50, one after another. For each fork it times the answer to POST /fork (202) and how
// long after the request was sent the fork's first node started (the `ts` of its first
// node_started event; same machine clock); also the steps list and the preview. It starts the real
// server (`node backend/dist/cli/main.js start`) on 127.0.0.1 with a temporary data directory
// (SQLite; PostgreSQL when DATABASE_URL is set; see studio-launch.mjs) and prints figures next to the target (a fork from
// superstep 50 of a 100-superstep run starts in ≤ 200 ms).
//
// Run: npm run build && node bench/fork.mjs [--forks 20] [--supersteps 100] [--at 50] (--help)
import { numberOptions } from "./bench-args.mjs";
import { launchStudio, sleep } from "./studio-launch.mjs";

const USAGE = "node bench/fork.mjs [--forks 20] [--supersteps 100] [--at 50]  (after npm run build)";
const { forks: FORKS, supersteps: SUPERSTEPS, at: AT } = numberOptions(USAGE, { forks: 20, supersteps: 100, at: 50 });

const studio = await launchStudio({
  name: "fork",
  env: { STUDIO_MAX_SUPERSTEPS: String(SUPERSTEPS + 10), STUDIO_USER_RUN_RATE: "100000" },
});
const { call } = studio;

async function untilEnded(runId, token) {
  for (;;) {
    const run = (await call("GET", `/api/runs/${runId}`, undefined, token)).body.data;
    if (!["queued", "running"].includes(run.status)) return run;
    await sleep(20);
  }
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const ms = (value) => `${value.toFixed(1)} ms`;

const { token, key } = await studio.setupOwner();
const at = { x: 0, y: 0 };
const edges = [{ id: "s", source: "start", target: "n0" }];
for (let i = 0; i < SUPERSTEPS; i++) {
  edges.push({ id: `e${i}`, source: `n${i}`, target: i < SUPERSTEPS - 1 ? `n${i + 1}` : "end", label: "next" });
}
const workflowId = (
  await call(
    "POST",
    "/api/workflows",
    {
      name: "bench long chain",
      state: [{ name: "note", type: "string", default: "" }],
      nodes: Array.from({ length: SUPERSTEPS }, (_, i) => ({
        id: `n${i}`,
        type: "condition",
        position: at,
        data: { rules: [], default_label: "next" },
      })),
      edges,
    },
    token,
  )
).body.data.id;

const started = await call("POST", `/api/hooks/workflows/${workflowId}/runs`, { input: {} }, key);
const parentId = started.body.data.run_id;
const parent = await untilEnded(parentId, token);
console.log(`parent run: ${parent.status}, ${parent.metrics.supersteps} supersteps`);

// The first call also loads the checkpoint serializer (LangGraph's checkpoint package), not at start.
let time;
for (const [which, limit] of [
  ["first call", 200],
  ["again", 200],
  ["a page of 10", 10],
]) {
  time = performance.now();
  const steps = await call("GET", `/api/runs/${parentId}/steps?limit=${limit}`, undefined, token);
  console.log(`steps list (${steps.body.data.length} supersteps), ${which}: ${ms(performance.now() - time)}`);
}

const answers = [];
const firstNode = [];
const previews = [];
for (let i = 0; i < FORKS; i++) {
  time = performance.now();
  const preview = await call("POST", `/api/runs/${parentId}/fork/preview`, { superstep: AT }, token);
  previews.push(performance.now() - time);
  if (preview.status !== 200) throw new Error(`preview refused: ${JSON.stringify(preview.body)}`);
  const sent = Date.now();
  time = performance.now();
  const fork = await call("POST", `/api/runs/${parentId}/fork`, { superstep: AT, state: { note: `fork ${i}` } }, token);
  answers.push(performance.now() - time);
  if (fork.status !== 202) throw new Error(`fork refused: ${JSON.stringify(fork.body)}`);
  const ended = await untilEnded(fork.body.data.id, token);
  if (ended.status !== "ok") throw new Error(`fork ended ${ended.status}: ${JSON.stringify(ended.error)}`);
  const events = (await call("GET", `/api/runs/${fork.body.data.id}/events?limit=5`, undefined, token)).body.data;
  const first = events.find((event) => event.type === "node_started");
  firstNode.push(Date.parse(first.ts) - sent);
}

console.log(`forks from superstep ${AT} of ${SUPERSTEPS}, one after another: ${FORKS}`);
console.log(`  preview:                 p50 ${ms(percentile(previews, 50))}, p95 ${ms(percentile(previews, 95))}`);
console.log(`  POST /fork answered:     p50 ${ms(percentile(answers, 50))}, p95 ${ms(percentile(answers, 95))}`);
console.log(
  `  first node started after: p50 ${ms(percentile(firstNode, 50))}, p95 ${ms(percentile(firstNode, 95))} (target ≤ 200 ms; clock resolution 1 ms)`,
);
studio.stop();
