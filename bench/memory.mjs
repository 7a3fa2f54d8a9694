// The studio's memory: idle, after 1,000 and after 10,000 quick runs (start → end, hook-triggered,
// 20 in flight), what 10,000 runs waiting at a Human node add, and how fast one of them resumes
// (the HTTP answer, and the time until the node after the Human node starts). It starts the real
// server (`node backend/dist/cli/main.js start`) on 127.0.0.1 with a temporary data directory
// (SQLite; PostgreSQL when DATABASE_URL is set) and prints figures next to their targets.
//
// Resident memory is VmRSS from /proc/<pid>/status, read as it is. The heap figure is the heap in
// use after a forced full collection (the server runs with --expose-gc and bench/memory-probe.mjs,
// which collects on SIGUSR2); it is read after the resident figure, so it never lowers it.
//
// Run: npm run build && node bench/memory.mjs [--runs 10000] [--waiting 10000] [--resumes 200] (--help)
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { numberOptions } from "./bench-args.mjs";
import { launchStudio, sleep } from "./studio-launch.mjs";

const USAGE = "node bench/memory.mjs [--runs 10000] [--waiting 10000] [--resumes 200]  (after npm run build)";
const options = numberOptions(USAGE, { runs: 10_000, waiting: 10_000, resumes: 200 });
const RUNS = options.runs;
const FIRST = Math.min(1_000, RUNS);
const WAITING = options.waiting;
const RESUMES = Math.min(options.resumes, WAITING);
const IN_FLIGHT = 20;
const SETTLE_MS = 3_000;

const probe = fileURLToPath(new URL("./memory-probe.mjs", import.meta.url));
const mb = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`;

const studio = await launchStudio({
  name: "memory",
  nodeArgs: ["--expose-gc", "--import", probe],
  env: (dataDir) => ({
    STUDIO_USER_MAX_RUNS: "8",
    STUDIO_WORKER_CONCURRENCY: "8",
    STUDIO_USER_MAX_QUEUED: "1000000",
    STUDIO_USER_RUN_RATE: "100000",
    STUDIO_HOOK_RATE_LIMIT: "1000000",
    MEMORY_PROBE_OUT: join(dataDir, "probe.json"),
  }),
});
const { call } = studio;
const probeOut = join(studio.dataDir, "probe.json");

function rss() {
  const status = readFileSync(`/proc/${studio.child.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
}

async function heapAfterGc() {
  const before = (() => {
    try {
      return statSync(probeOut).mtimeMs;
    } catch {
      return 0;
    }
  })();
  studio.child.kill("SIGUSR2");
  for (;;) {
    await sleep(50);
    try {
      if (statSync(probeOut).mtimeMs !== before) return JSON.parse(readFileSync(probeOut, "utf8")).heapUsed;
    } catch {}
  }
}

async function measure() {
  await sleep(SETTLE_MS);
  const resident = rss();
  return { rss: resident, heap: await heapAfterGc() };
}

const idle = await measure();

const { token, key } = await studio.setupOwner();
const at = { x: 0, y: 0 };
const hello = (
  await call(
    "POST",
    "/api/workflows",
    {
      name: "hello",
      state: [{ name: "greeting", type: "string", default: "Hello" }],
      nodes: [],
      edges: [{ id: "e1", source: "start", target: "end" }],
    },
    token,
  )
).body.data.id;
const approval = (
  await call(
    "POST",
    "/api/workflows",
    {
      name: "approval",
      state: [{ name: "answer", type: "object" }],
      nodes: [
        {
          id: "ask",
          type: "human",
          position: at,
          data: {
            message: "Approve?",
            fields: [{ name: "ok", type: "boolean", required: true }],
            output_field: "answer",
            timeout_seconds: 86_400,
          },
        },
        { id: "after", type: "condition", position: at, data: { rules: [], default_label: "next" } },
      ],
      edges: [
        { id: "e1", source: "start", target: "ask" },
        { id: "e2", source: "ask", target: "after" },
        { id: "e3", source: "after", target: "end", label: "next" },
      ],
    },
    token,
  )
).body.data.id;

/** Triggers `count` runs of a workflow through the hook route, IN_FLIGHT at a time. */
async function trigger(workflowId, count) {
  const ids = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const answer = await call("POST", `/api/hooks/workflows/${workflowId}/runs`, { input: {} }, key);
      if (answer.status !== 202) throw new Error(`trigger answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      ids.push(answer.body.data.run_id);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return ids;
}

/** Resolves once no run is queued or running. */
async function drained() {
  for (;;) {
    const queued = await call("GET", "/api/runs?status=queued&limit=1", undefined, token);
    const running = await call("GET", "/api/runs?status=running&limit=1", undefined, token);
    if (queued.body.data.length === 0 && running.body.data.length === 0) return;
    await sleep(200);
  }
}

async function countOf(status, workflowId) {
  let count = 0;
  for (let offset = 0; ; offset += 200) {
    const page = await call(
      "GET",
      `/api/runs?status=${status}&workflow_id=${workflowId}&limit=200&offset=${offset}`,
      undefined,
      token,
    );
    count += page.body.data.length;
    if (page.body.data.length < 200) return count;
  }
}

const started = performance.now();
await trigger(hello, FIRST);
await drained();
const afterFirst = await measure();
await trigger(hello, RUNS - FIRST);
await drained();
const afterAll = await measure();
const seconds = (performance.now() - started) / 1000;
const ok = await countOf("ok", hello);

const beforeWaiting = afterAll;
const waitingIds = await trigger(approval, WAITING);
await drained();
const waiting = await measure();
const waitingCount = await countOf("waiting", approval);

// Resumes one at a time: the HTTP answer, then the time from sending the answer until the node
// after the Human node starts (its node_started event's timestamp, taken by the server).
const accept = [];
const reach = [];
for (const runId of waitingIds.slice(0, RESUMES)) {
  const sentAt = Date.now();
  const t0 = performance.now();
  const answer = await call("POST", `/api/runs/${runId}/resume`, { input: { ok: true } }, token);
  accept.push(performance.now() - t0);
  if (answer.status !== 200) throw new Error(`resume answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  for (;;) {
    const events = (await call("GET", `/api/runs/${runId}/events`, undefined, token)).body.data;
    const after = events.find((e) => e.type === "node_started" && e.node_id === "after");
    if (after) {
      reach.push(Date.parse(after.ts) - sentAt);
      break;
    }
    await sleep(5);
  }
}
await drained();

const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const growth = ((afterAll.rss - afterFirst.rss) / afterFirst.rss) * 100;
const heapGrowth = ((afterAll.heap - afterFirst.heap) / afterFirst.heap) * 100;
const added = waiting.rss - beforeWaiting.rss;
const mark = (good) => (good ? "ok" : "MISSED");

console.log(`database: ${process.env.DATABASE_URL ? "postgres" : "sqlite"}; ${RUNS} runs in ${seconds.toFixed(1)} s`);
console.log(
  `resident memory, idle:                ${mb(idle.rss)}  (heap after GC ${mb(idle.heap)})  target ≤ 150 MB: ${mark(idle.rss <= 150 * 1048576)}`,
);
console.log(`resident memory, after ${FIRST} runs:     ${mb(afterFirst.rss)}  (heap after GC ${mb(afterFirst.heap)})`);
console.log(
  `resident memory, after ${RUNS} runs:    ${mb(afterAll.rss)}  (heap after GC ${mb(afterAll.heap)}); ${ok} ended ok`,
);
console.log(
  `  growth from ${FIRST} to ${RUNS} runs:      resident ${growth.toFixed(1)} %, heap ${heapGrowth.toFixed(1)} %  target within 10 %: ${mark(Math.abs(growth) <= 10)}`,
);
console.log(`${waitingCount} runs waiting at a Human node:  ${mb(waiting.rss)}  (heap after GC ${mb(waiting.heap)})`);
console.log(
  `  added by the waiting runs:          resident ${mb(added)}, heap ${mb(waiting.heap - beforeWaiting.heap)}  target ≤ 50 MB: ${mark(added <= 50 * 1048576)}`,
);
console.log(
  `resume (${accept.length}, one at a time):  accept p50 ${pct(accept, 50).toFixed(1)} ms, p95 ${pct(accept, 95).toFixed(1)} ms  target ≤ 20 ms: ${mark(pct(accept, 95) <= 20)}`,
);
console.log(
  `  until the next node starts:         p50 ${pct(reach, 50)} ms, p95 ${pct(reach, 95)} ms  target ≤ 100 ms: ${mark(pct(reach, 95) <= 100)}`,
);

studio.stop();
