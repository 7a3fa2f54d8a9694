// Validation of adversarial documents at the size limits (2,000 nodes, 5,000 edges, 100,000-
// character prompts, subgraphs nested five levels deep): how long each takes in-process, how long
// it holds the event loop at most, and then whether a real studio keeps answering /api/health
// while it validates them. Prints figures; asserts nothing.
// Run: npm run build && node bench/validation.mjs
import { spawn } from "node:child_process";
import { subscribe } from "node:diagnostics_channel";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { VALIDATION_PAUSE_CHANNEL } from "../backend/dist/engine/validator/time-slicer.js";
import { validateWorkflow } from "../backend/dist/engine/validator/validator.js";
import { workflowDocument } from "../backend/dist/schemas/workflow.schema.js";
import * as shapes from "../backend/test/adversarial-workflows.ts";
import { benchArgs } from "./bench-args.mjs";

benchArgs("node bench/validation.mjs   (after npm run build; takes no options)");

const HEALTH_TARGET_MS = 100;
const POLL_MS = 10;

function documents() {
  const corners = (rows, columns) => [
    [0, 0],
    [rows - 1, columns - 1],
  ];
  const long = 100_000;
  const nested = shapes.nestedSubgraphs(5, 1000);
  return [
    { doc: shapes.ladder(30, 32, corners(30, 32)), note: "the finding's 961-node ladder" },
    { doc: shapes.ladder(500, 2, corners(500, 2)) },
    { doc: shapes.ladder(100, 10, corners(100, 10)) },
    { doc: shapes.ladder(10, 100, corners(10, 100)) },
    { doc: shapes.skipChain(160, 5, [0, 159]), note: "the finding's 160-node chain" },
    { doc: shapes.skipChain(1000, 5, [0, 999]) },
    { doc: shapes.fanOut(997, 1, false) },
    { doc: shapes.fanOut(997, 1, true) },
    { doc: shapes.layeredDag(200, 5) },
    { doc: shapes.layeredDag(2, 70) },
    { doc: shapes.conditionLoops(250) },
    { doc: shapes.routerMesh(500, 9, 498) },
    { doc: shapes.joinPhases(40, 20) },
    { doc: shapes.joinStorm(100, 400, 10), note: "past the budget: combined Join phase" },
    { doc: shapes.joinRings([2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31]), note: "past the budget: combined Join phase" },
    { doc: shapes.prompts(20, `{{${" ".repeat(long - 2)}`) },
    { doc: shapes.prompts(20, `{{ state.a${" ".repeat(long - 10)}`) },
    { doc: shapes.prompts(20, "{{ }".repeat(long / 4)) },
    { doc: shapes.prompts(20, `${"{{".repeat(long / 2 - 10)}{{ state.log }}`) },
    { doc: nested.top, saved: nested.saved, note: "5 levels × 1,000 Subgraph nodes" },
    // At the node limit (DOCUMENT_LIMITS.nodes = 2,000).
    { doc: shapes.skipChain(2000, 2, [0, 1999]), note: "at the 2,000-node limit" },
    { doc: shapes.ladder(1000, 2, corners(1000, 2)), note: "at the 2,000-node limit" },
    { doc: shapes.fanOut(1997, 1, true), note: "at the 2,000-node limit" },
    { doc: shapes.routerMesh(1000, 3, 998), note: "at the 2,000-node limit" },
  ];
}

const environment = (saved = {}) => ({
  codeMode: "wasm",
  providers: {
    openai: { configured: true, variable: "OPENAI_API_KEY" },
    anthropic: { configured: true, variable: "ANTHROPIC_API_KEY" },
  },
  serverKeyNeeded: () => false,
  smtpConfigured: true,
  credentialType: async () => undefined,
  maxSubgraphDepth: 5,
  resolveWorkflow: async (id, version) => saved[`${id}@${version}`],
});

const summary = (result) =>
  result.ok ? "valid" : [...new Set(result.problems.map((p) => p.code))].join(", ").slice(0, 60);
const ms = (value) => `${value.toFixed(1)} ms`;

async function inProcess(cases) {
  // One zod parse of the document with the most elements, before anything else warms zod up.
  const size = (entry) => entry.doc.nodes.length + entry.doc.edges.length;
  const largest = cases.reduce((a, b) => (size(a) >= size(b) ? a : b));
  let started = performance.now();
  workflowDocument.safeParse(largest.doc);
  const cold = performance.now() - started;
  const warm = [];
  for (let i = 0; i < 5; i++) {
    started = performance.now();
    workflowDocument.safeParse(largest.doc);
    warm.push(performance.now() - started);
  }
  console.log(
    `One zod parse of the document with the most elements (${largest.doc.name}, ${size(largest)} nodes and edges, ` +
      `${(largest.bytes / 1024).toFixed(0)} KiB): ` +
      `${ms(cold)} cold, ${ms(Math.min(...warm))} warm. The validator parses the big arrays in slices instead.\n`,
  );

  console.log("In-process validation (three runs: first, best, worst); work units of the parallel-write analysis;");
  console.log("pauses (times the event loop was given back); longest hold (longest stretch without a pause):\n");
  // Every pause is published on a diagnostics channel: the gaps between them are the stretches
  // for which the validation kept the event loop.
  let lastPause = 0;
  let longestHold = 0;
  subscribe(VALIDATION_PAUSE_CHANNEL, () => {
    const now = performance.now();
    longestHold = Math.max(longestHold, now - lastPause);
    lastPause = now;
  });
  const rows = [];
  for (const entry of cases) {
    const times = [];
    let result;
    longestHold = 0;
    for (let i = 0; i < 3; i++) {
      started = performance.now();
      lastPause = started;
      result = await validateWorkflow(entry.doc, environment(entry.saved));
      const ended = performance.now();
      longestHold = Math.max(longestHold, ended - lastPause);
      times.push(ended - started);
    }
    entry.result = result;
    rows.push({
      document: entry.doc.name,
      nodes: entry.doc.nodes.length,
      edges: entry.doc.edges.length,
      KiB: Math.round(entry.bytes / 1024),
      result: summary(result),
      first: ms(times[0]),
      best: ms(Math.min(...times)),
      worst: ms(Math.max(...times)),
      work: result.stats.parallelWriteOperations,
      pauses: result.stats.pauses,
      "longest hold": ms(longestHold),
      note: entry.note ?? "",
      slowest: Math.max(...times),
      hold: longestHold,
    });
  }
  console.table(rows.map(({ slowest, hold, ...row }) => row));
  const worst = rows.reduce((a, b) => (a.slowest > b.slowest ? a : b));
  const held = rows.reduce((a, b) => (a.hold > b.hold ? a : b));
  console.log(`Slowest validation: ${worst.document}, ${ms(worst.slowest)}.`);
  console.log(`Longest hold of the event loop: ${ms(held.hold)} (${held.document}).\n`);
}

function startStudio(dataDir) {
  const bin = fileURLToPath(new URL("../backend/bin/superstep.js", import.meta.url));
  const env = { ...process.env };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const child = spawn(process.execPath, [bin, "start"], {
    env: {
      ...env,
      STUDIO_DATA_DIR: dataDir,
      STUDIO_HOST: "127.0.0.1",
      STUDIO_PORT: "0",
      STUDIO_LOG_LEVEL: "info",
      // Only so LLM nodes validate as runnable; nothing is ever sent anywhere.
      OPENAI_API_KEY: "sk-bench-never-used",
    },
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      if (output === null) return; // started: keep draining the pipe, nothing more
      output += chunk.toString();
      const match = /running on http:\/\/[^:]+:(\d+)/.exec(output);
      if (!match) return;
      output = null;
      resolve({ child, url: `http://127.0.0.1:${match[1]}` });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`the studio exited with ${code}:\n${output}`)));
  });
}

async function request(url, options = {}) {
  const response = await fetch(url, options);
  const body = await response.json();
  return { status: response.status, body };
}

/** Polls /api/health every POLL_MS until `stop()`; returns the latencies. */
function pollHealth(base) {
  const latencies = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const started = performance.now();
      const { status } = await request(`${base}/api/health`);
      if (status !== 200) throw new Error(`health answered ${status}`);
      const latency = performance.now() - started;
      latencies.push(latency);
      if (latency < POLL_MS) await sleep(POLL_MS - latency);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await done;
      return latencies;
    },
  };
}

const percentile = (values, p) => values.slice().sort((a, b) => a - b)[Math.floor((values.length - 1) * p)];

async function againstStudio(cases) {
  const dataDir = mkdtempSync(join(tmpdir(), "superstep-bench-"));
  const { child, url } = await startStudio(dataDir);
  try {
    const setup = await request(`${url}/api/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "bench@example.com", password: "bench-password" }),
    });
    const auth = { authorization: `Bearer ${setup.body.data.token}`, "content-type": "application/json" };

    // Save the nested levels bottom-up, pointing each at the saved id of the level below.
    const bodies = [];
    for (const entry of cases) {
      let doc = entry.doc;
      if (entry.saved) {
        const levels = Object.keys(entry.saved).length;
        let below;
        for (let k = levels; k >= 0; k--) {
          const level = k === 0 ? entry.doc : entry.saved[`level${k}@1`];
          const pointed = JSON.parse(JSON.stringify(level).replaceAll(`"level${k + 1}"`, JSON.stringify(below)));
          if (k === 0) doc = pointed;
          else {
            const saved = await request(`${url}/api/workflows`, {
              method: "POST",
              headers: auth,
              body: JSON.stringify(pointed),
            });
            below = saved.body.data.id;
          }
        }
      }
      bodies.push({ name: entry.doc.name, body: JSON.stringify(doc), expected: summary(entry.result) });
    }

    const idle = pollHealth(url);
    await sleep(1000);
    const idleLatencies = await idle.stop();

    const poller = pollHealth(url);
    const rows = [];
    for (const { name, body, expected } of bodies) {
      const started = performance.now();
      const answer = await request(`${url}/api/workflows/validate`, { method: "POST", headers: auth, body });
      const elapsed = performance.now() - started;
      const result =
        answer.status === 200
          ? "valid"
          : [...new Set((answer.body.error.details ?? [answer.body.error]).map((d) => d.code))].join(", ").slice(0, 60);
      rows.push({
        document: name,
        status: answer.status,
        result,
        "same as in-process": result === expected,
        time: ms(elapsed),
      });
    }
    const latencies = await poller.stop();
    console.log(`A studio process on ${url}: every document above sent to POST /api/workflows/validate, in turn,`);
    console.log(`while /api/health was polled every ${POLL_MS} ms:\n`);
    console.table(rows);
    const max = Math.max(...latencies);
    console.log(
      `/api/health while validating: ${latencies.length} answers, median ${ms(percentile(latencies, 0.5))}, ` +
        `p99 ${ms(percentile(latencies, 0.99))}, max ${ms(max)} (idle: max ${ms(Math.max(...idleLatencies))}).`,
    );
    console.log(`Stayed under ${HEALTH_TARGET_MS} ms: ${max < HEALTH_TARGET_MS ? "yes" : "NO"} (max ${ms(max)}).`);
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const cases = documents().map((entry) => ({ ...entry, bytes: Buffer.byteLength(JSON.stringify(entry.doc)) }));
await inProcess(cases);
await againstStudio(cases);
