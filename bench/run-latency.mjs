// Where a hook-triggered run's time goes, from the hook to its end being seen: start → end runs
// through a real studio (SQLite), closed loop (each client fires its next hook once its run has
// ended), at 1 and at N in flight. Prints per number in flight: the hook's answer (202) and the
// run's end as the client saw it (p50 / p90), and, from the run's row and events (p50): row
// written → run started (leased), started → its run_started event, run_started → run_finished,
// and run_finished → the row's ending. A profiling aid; throughput.mjs is the benchmark of record.
// Run: npm run build && node bench/run-latency.mjs [--runs 600] [--inflight 20]

import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { numberOptions } from "./bench-args.mjs";
import { launchStudio, sleep } from "./studio-launch.mjs";

const USAGE = "node bench/run-latency.mjs [--runs 600] [--inflight 20]";
const { runs: RUNS, inflight: INFLIGHT } = numberOptions(USAGE, { runs: 600, inflight: 20 }, 1);
const at = { x: 0, y: 0 };
const hello = {
  name: "hello",
  nodes: [
    { id: "start", type: "start", position: at, data: {} },
    { id: "end", type: "end", position: at, data: {} },
  ],
  edges: [{ id: "e", source: "start", target: "end" }],
  state: [],
};

const studio = await launchStudio({
  name: "latency",
  env: {
    STUDIO_USER_MAX_RUNS: String(INFLIGHT),
    STUDIO_WORKER_CONCURRENCY: String(INFLIGHT),
    STUDIO_USER_RUN_RATE: "100000",
    STUDIO_HOOK_RATE_LIMIT: "1000000",
    STUDIO_USER_MAX_QUEUED: "1000000",
  },
});
const { token, key } = await studio.setupOwner();
const saved = await studio.call("POST", "/api/workflows", hello, token);
if (saved.status !== 201) throw new Error(`saving the workflow answered ${saved.status}`);
const workflowId = saved.body.data.id;
const db = new DatabaseSync(join(studio.dataDir, "superstep.db"), { readOnly: true });
const endedOf = db.prepare(
  "select id from runs where id in (select value from json_each(?)) and status in ('ok', 'error', 'cancelled', 'timeout', 'expired')",
);
const phasesOf = db.prepare(
  `select r.created_at written, r.started_at started, r.finished_at ended,
     (select ts from run_events e where e.run_id = r.id and e.type = 'run_started') run_started,
     (select ts from run_events e where e.run_id = r.id and e.type = 'run_finished') run_finished
   from runs r where r.id in (select value from json_each(?))`,
);

const p = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))].toFixed(1);
};

async function round(inflight) {
  const waiting = new Map();
  let polling = true;
  const poll = (async () => {
    while (polling) {
      if (waiting.size > 0)
        for (const { id } of endedOf.all(JSON.stringify([...waiting.keys()]))) {
          waiting.get(id)(performance.now());
          waiting.delete(id);
        }
      await sleep(1);
    }
  })();
  const answers = [];
  const ends = [];
  const ids = [];
  let fired = 0;
  await Promise.all(
    Array.from({ length: inflight }, async () => {
      while (fired < RUNS) {
        fired++;
        const begun = performance.now();
        const response = await fetch(`${studio.base}/api/hooks/workflows/${workflowId}/runs`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: "{}",
        });
        const body = await response.json();
        if (response.status !== 202) throw new Error(`the hook answered ${response.status}`);
        answers.push(performance.now() - begun);
        ids.push(body.data.run_id);
        const ended = await new Promise((resolve) => waiting.set(body.data.run_id, resolve));
        ends.push(ended - begun);
      }
    }),
  );
  polling = false;
  await poll;
  // The first tenth warms up.
  const rows = phasesOf.all(JSON.stringify(ids.slice(Math.floor(ids.length / 10))));
  const between = (from, to) => rows.map((row) => Date.parse(row[to]) - Date.parse(row[from]));
  console.log(
    `${inflight} in flight: answer p50 ${p(answers, 0.5)} ms; end seen p50 ${p(ends, 0.5)} p90 ${p(ends, 0.9)} ms; ` +
      `written → started ${p(between("written", "started"), 0.5)} ms, started → run_started ${p(between("started", "run_started"), 0.5)} ms, ` +
      `run_started → run_finished ${p(between("run_started", "run_finished"), 0.5)} ms, run_finished → ended ${p(between("run_finished", "ended"), 0.5)} ms (p50)`,
  );
}

try {
  console.log(
    `${RUNS} hook-triggered start → end runs per round, closed loop; times from the client and from the run's row and events`,
  );
  await round(1);
  await round(INFLIGHT);
} finally {
  db.close();
  studio.stop();
}
