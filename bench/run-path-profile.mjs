// Profiles the run path of a real studio process: hook-triggered runs of start → end, a chain of
// 10 Conditions and an 8-way fan-out with a join, fired at a given number in flight. Prints, per
// graph, completed runs per second, the server's CPU milliseconds per run (utime + stime from
// /proc) and how they split over its threads, each thread's heap and collections, SQL statements
// and transactions per run in the main thread and the run thread (counted by a preload that wraps
// node:sqlite, or pg's client), the event loop's delay while runs execute, and the hook's answer latency (p50 /
// p99 / max); then the latency of hooks fired at a higher number in flight while a chain of runs
// executes. With --bare DIR (a directory where @langchain/langgraph and
// @langchain/langgraph-checkpoint-sqlite are installed), the same graphs in bare LangGraph.js with
// the official SQLite saver on a file, durability "sync", at the same number in flight, each round
// right after the studio's, and the median ratio of the pairs.
//
// SQLite by default; with DATABASE_URL (a fresh database, migrated by the studio) PostgreSQL.
// Run: npm run build -w backend && node bench/run-path-profile.mjs [options]   (--help lists them)
// This is a profiling aid for the run path; bench/throughput.mjs is the benchmark of record.
import { spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath, pathToFileURL } from "node:url";
import { benchArgs, usageError, wholeNumber } from "./bench-args.mjs";

const USAGE = `node bench/run-path-profile.mjs [options]   (after npm run build -w backend)
  --runs N               runs per round (default 600)
  --inflight N           hooks in flight (default 20)
  --probe N              hooks fired at 5 × --inflight while a chain of runs executes (default 100; 0 skips)
  --closed               the probe's clients each wait for their run to end before the next hook
  --graphs LIST          some of hello,chain10,fanout8 (default all three)
  --rounds N             studio rounds per graph (default 1), each paired with a bare one under --bare
  --bare DIR             a folder where @langchain/langgraph and @langchain/langgraph-checkpoint-sqlite are installed
  --count-sql            statements and transactions per run, and their time
  --cpu-prof DIR         CPU profiles of the studio's threads (and bare's) written to DIR
  --alloc-prof DIR       what the run thread (and bare) allocated in each round, written to DIR
  --alloc-survivors      with --alloc-prof, only what outlived a young collection (promoted, or still alive)
  --studio-log FILE      the studio's whole output
  --node-args="FLAGS"    flags for the studio's node (e.g. --trace-gc-nvp)
With DATABASE_URL (a fresh database, migrated by the studio), PostgreSQL instead of SQLite.`;
const { values: args } = benchArgs(USAGE, {
  runs: { type: "string", default: "600" },
  inflight: { type: "string", default: "20" },
  probe: { type: "string", default: "100" },
  graphs: { type: "string", default: "hello,chain10,fanout8" },
  bare: { type: "string" },
  "cpu-prof": { type: "string" },
  "count-sql": { type: "boolean", default: false },
  "bare-child": { type: "string" },
  rounds: { type: "string", default: "1" },
  "studio-log": { type: "string" },
  "node-args": { type: "string" },
  "alloc-prof": { type: "string" },
  "alloc-survivors": { type: "boolean", default: false },
  closed: { type: "boolean", default: false },
});
const RUNS = wholeNumber(USAGE, "--runs", args.runs);
const INFLIGHT = wholeNumber(USAGE, "--inflight", args.inflight);
const PROBE = wholeNumber(USAGE, "--probe", args.probe, 0, 0);
const GRAPHS = args.graphs.split(",");
const unknownGraph = GRAPHS.find((name) => !["hello", "chain10", "fanout8"].includes(name));
if (unknownGraph !== undefined) usageError(USAGE, `--graphs: no graph '${unknownGraph}' (hello, chain10, fanout8)`);
const ROUNDS = wholeNumber(USAGE, "--rounds", args.rounds);
const TERMINAL = "('ok','error','cancelled','timeout','expired')";
const MAIN = fileURLToPath(new URL("../backend/dist/cli/main.js", import.meta.url));
const TICK_MS = 10; // USER_HZ is 100 on Linux

const at = { x: 0, y: 0 };
function documents() {
  const chainIds = Array.from({ length: 10 }, (_, i) => `n${i}`);
  const chainEdges = [{ id: "s", source: "start", target: "n0" }];
  for (let i = 0; i < 10; i++)
    chainEdges.push({ id: `e${i}`, source: `n${i}`, target: i + 1 < 10 ? `n${i + 1}` : "end", label: "next" });
  const fanIds = [...Array.from({ length: 8 }, (_, i) => `b${i}`), "j"];
  const fanEdges = [];
  for (let i = 0; i < 8; i++)
    fanEdges.push(
      { id: `s${i}`, source: "start", target: `b${i}` },
      { id: `e${i}`, source: `b${i}`, target: "j", label: "next" },
    );
  fanEdges.push({ id: "end", source: "j", target: "end" });
  const nodes = (ids) =>
    ids.map((id) => ({
      id,
      type: id.startsWith("j") ? "join" : "condition",
      position: at,
      data: id.startsWith("j") ? {} : { rules: [], default_label: "next" },
    }));
  return {
    hello: {
      name: "hello",
      state: [{ name: "greeting", type: "string", default: "Hello" }],
      nodes: [],
      edges: [{ id: "e1", source: "start", target: "end" }],
    },
    chain10: {
      name: "chain10",
      state: [{ name: "log", type: "list", reducer: "append" }],
      nodes: nodes(chainIds),
      edges: chainEdges,
    },
    fanout8: {
      name: "fanout8",
      state: [{ name: "log", type: "list", reducer: "append" }],
      nodes: nodes(fanIds),
      edges: fanEdges,
    },
  };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const ms = (n) => `${n.toFixed(n < 10 ? 2 : 1)} ms`;

/** utime + stime of a process, in milliseconds. */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** utime + stime of each of a process's threads, summed by thread name, in milliseconds. */
function threadCpuMs(pid) {
  const byName = {};
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
    } catch {
      continue; // the thread ended
    }
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    byName[name] = (byName[name] ?? 0) + (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  }
  return byName;
}

// Loaded into the studio with --require (which, unlike --import, also runs in the run thread, an
// eval worker): the event loop's delay, and (with COUNT_SQL) every
// statement node:sqlite executes, by kind, written to a file on SIGUSR2 and reset.
const PRELOAD = `
const { monitorEventLoopDelay, PerformanceObserver } = require("node:perf_hooks");
const { writeFileSync } = require("node:fs");
const sqlite = require("node:sqlite");
const fs = require("node:fs");
const { syncBuiltinESMExports } = require("node:module");
const { isMainThread } = require("node:worker_threads");
// How long the studio's WAL syncs take (the disk's latency, in the thread pool).
const syncTimes = [];
const fdatasync = fs.fdatasync;
fs.fdatasync = function (fd, callback) {
  const t0 = performance.now();
  return fdatasync.call(this, fd, (error) => {
    syncTimes.push(performance.now() - t0);
    callback(error);
  });
};
syncBuiltinESMExports();
const h = monitorEventLoopDelay({ resolution: 5 });
h.enable();
const gc = { count: 0, total: 0, max: 0 };
// Pauses by kind (scavenge, mark-compact, ...): count and total milliseconds.
const gcKinds = {};
const GC_KINDS = { 1: "scavenge", 2: "mark-compact", 4: "incremental marking", 8: "weak callbacks" };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = GC_KINDS[entry.detail?.kind] ?? "other";
    gcKinds[kind] = gcKinds[kind] ?? { n: 0, ms: 0 };
    gcKinds[kind].n++;
    gcKinds[kind].ms += entry.duration;
    gc.count++;
    gc.total += entry.duration;
    gc.max = Math.max(gc.max, entry.duration);
  }
}).observe({ entryTypes: ["gc"] });
const counts = {};
const slow = {};
const times = {};
if (process.env.COUNT_SQL === "1") {
  const prepare = sqlite.DatabaseSync.prototype.prepare;
  const wrapped = new WeakSet();
  sqlite.DatabaseSync.prototype.prepare = function (sql) {
    const statement = prepare.call(this, sql);
    const kind = sql.trim().split(/\\s+/).slice(0, sql.trim().toLowerCase().startsWith("begin") ? 1 : 3).join(" ").toLowerCase();
    counts.prepare = (counts.prepare ?? 0) + 1;
    for (const m of ["run", "all", "get", "iterate"]) {
      const original = statement[m];
      statement[m] = function (...a) {
        counts[kind] = (counts[kind] ?? 0) + 1;
        const t0 = performance.now();
        try { return original.apply(this, a); } finally {
          const took = performance.now() - t0;
          times[kind] = (times[kind] ?? 0) + took;
          if (took > 20) { slow[kind] = slow[kind] ?? { n: 0, max: 0, total: 0 }; slow[kind].n++; slow[kind].total += took; slow[kind].max = Math.max(slow[kind].max, took); }
        }
      };
    }
    return statement;
  };
  const exec = sqlite.DatabaseSync.prototype.exec;
  sqlite.DatabaseSync.prototype.exec = function (sql) {
    const kind = "exec " + sql.trim().split(/\\s+/)[0].toLowerCase();
    counts[kind] = (counts[kind] ?? 0) + 1;
    return exec.call(this, sql);
  };
  // On PostgreSQL (DATABASE_URL): every statement a pg client sends, counted when the studio
  // first loads the driver.
  const Module = require("node:module");
  const load = Module._load;
  Module._load = function (request, ...rest) {
    const loaded = load.call(this, request, ...rest);
    if (request === "pg" && loaded?.Client && !loaded.Client.prototype.query.counted) {
      const query = loaded.Client.prototype.query;
      loaded.Client.prototype.query = function (config, ...more) {
        const sql = String(typeof config === "string" ? config : config?.text ?? "").trim();
        const kind = sql.split(/\\s+/).slice(0, /^(begin|commit|rollback|savepoint|release)/i.test(sql) ? 1 : 3).join(" ").toLowerCase();
        counts[kind] = (counts[kind] ?? 0) + 1;
        return query.call(this, config, ...more);
      };
      loaded.Client.prototype.query.counted = true;
    }
    return loaded;
  };
}
// The run thread counts its own statements: the main thread asks it for them (and it resets) on
// a broadcast channel when the bench asks for a snapshot; signals reach the main thread only.
const channel = new BroadcastChannel("run-path-profile");
const threadCounts = {};
const threadTimes = {};
const threadGc = {};
const threadHeapMb = {};
const threadSpaces = {};
const HEAP_SPACES = process.env.PROFILE_HEAP_SPACES === "1";
// With --alloc-prof DIR, the run thread samples what it allocates (collected objects included)
// from one snapshot to the next, and sends the profile along. With --alloc-survivors, objects a
// young collection freed are left out: what is left was promoted (the old generation's garbage,
// which full collections mark) or is still alive.
const ALLOC = Boolean(process.env.PROFILE_ALLOC_DIR);
const ALLOC_SURVIVORS = process.env.PROFILE_ALLOC_SURVIVORS === "1";
let allocSession = null;
if (!isMainThread) {
  channel.onmessage = async (message) => {
    if (message.data?.type !== "ask") return;
    let allocation;
    if (ALLOC) {
      const { Session } = require("node:inspector/promises");
      if (allocSession) {
        allocation = JSON.stringify((await allocSession.post("HeapProfiler.stopSampling")).profile);
      } else {
        allocSession = new Session();
        allocSession.connect();
      }
      await allocSession.post("HeapProfiler.startSampling", {
        samplingInterval: 4096,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: !ALLOC_SURVIVORS,
      });
    }
    const heap = require("node:v8").getHeapStatistics();
    // With --expose-gc and PROFILE_HEAP_SPACES=1: what is alive, by space, after a full collection.
    let spaces;
    if (HEAP_SPACES && globalThis.gc) {
      globalThis.gc();
      spaces = require("node:v8").getHeapSpaceStatistics().map((s) => s.space_name + " " + (s.space_used_size / 2 ** 20).toFixed(1) + " MB").join(", ");
    }
    channel.postMessage({
      type: "counts",
      counts: { ...counts },
      times: { ...times },
      gc: structuredClone(gcKinds),
      heapMb: heap.used_heap_size / 2 ** 20,
      thread: require("node:worker_threads").threadId,
      spaces,
      allocation,
    });
    for (const k of Object.keys(gcKinds)) delete gcKinds[k];
    for (const k of Object.keys(counts)) delete counts[k];
    for (const k of Object.keys(times)) delete times[k];
  };
} else {
  channel.onmessage = (message) => {
    if (message.data?.type !== "counts") return;
    for (const [k, n] of Object.entries(message.data.counts)) threadCounts[k] = (threadCounts[k] ?? 0) + n;
    for (const [k, t] of Object.entries(message.data.times)) threadTimes[k] = (threadTimes[k] ?? 0) + t;
    threadGc[message.data.thread] = message.data.gc;
    threadHeapMb[message.data.thread] = message.data.heapMb;
    if (message.data.spaces) threadSpaces[message.data.thread] = message.data.spaces;
    if (message.data.allocation)
      writeFileSync(require("node:path").join(process.env.PROFILE_ALLOC_DIR, "thread-" + message.data.thread + "-" + Date.now() + ".heapprofile"), message.data.allocation);
  };
}
channel.unref();
if (isMainThread) process.on("SIGUSR2", () => {
  channel.postMessage({ type: "ask" });
  // The threads answer within the bench's 300 ms wait for the file.
  setTimeout(writeSnapshot, 150);
});
function writeSnapshot() {
  writeFileSync(process.env.PROFILE_OUT, JSON.stringify({
    threadSql: { ...threadCounts },
    threadTimes: { ...threadTimes },
    threadGc: { ...threadGc },
    threadHeapMb: { ...threadHeapMb },
    threadSpaces: { ...threadSpaces },
    mainGc: structuredClone(gcKinds),
    mainHeapMb: require("node:v8").getHeapStatistics().used_heap_size / 2 ** 20,
    loop: { p50: h.percentile(50) / 1e6, p99: h.percentile(99) / 1e6, max: h.max / 1e6, mean: h.mean / 1e6 },
    sql: counts,
    slow,
    times,
    gc: { ...gc },
    syncs: (() => {
      const sorted = [...syncTimes].sort((a, b) => a - b);
      const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
      return { count: sorted.length, p50: at(50), p99: at(99), max: sorted.at(-1) ?? 0 };
    })(),
  }));
  h.reset();
  syncTimes.length = 0;
  gc.count = 0;
  for (const k of Object.keys(gcKinds)) delete gcKinds[k];
  gc.total = 0;
  gc.max = 0;
  for (const k of Object.keys(counts)) delete counts[k];
  for (const k of Object.keys(slow)) delete slow[k];
  for (const k of Object.keys(times)) delete times[k];
  for (const k of Object.keys(threadCounts)) delete threadCounts[k];
  for (const k of Object.keys(threadTimes)) delete threadTimes[k];
}
`;

async function startStudio(dir) {
  const preload = join(dir, "preload.cjs");
  writeFileSync(preload, PRELOAD);
  const nodeArgs = ["--require", preload];
  if (args["node-args"]) nodeArgs.push(...args["node-args"].split(" "));
  if (args["cpu-prof"]) nodeArgs.push("--cpu-prof", `--cpu-prof-dir=${args["cpu-prof"]}`);
  const env = { ...process.env };
  delete env.REDIS_URL;
  Object.assign(env, {
    STUDIO_DATA_DIR: join(dir, "data"),
    STUDIO_PORT: "0",
    STUDIO_HOST: "127.0.0.1",
    STUDIO_LOG_LEVEL: process.env.STUDIO_LOG_LEVEL ?? "info",
    STUDIO_LOG_FORMAT: "json",
    STUDIO_USER_MAX_RUNS: String(INFLIGHT),
    STUDIO_WORKER_CONCURRENCY: String(INFLIGHT),
    STUDIO_USER_RUN_RATE: "100000",
    STUDIO_HOOK_RATE_LIMIT: "1000000",
    STUDIO_USER_MAX_QUEUED: "1000000",
    STUDIO_AUTH_RATE_LIMIT: "1000",
    PROFILE_OUT: join(dir, "profile.json"),
    COUNT_SQL: args["count-sql"] ? "1" : "0",
    PROFILE_ALLOC_DIR: args["alloc-prof"] ?? "",
    PROFILE_ALLOC_SURVIVORS: args["alloc-survivors"] ? "1" : "0",
  });
  // A free port picked here, so that readiness does not depend on the log level.
  const port = await new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
  env.STUDIO_PORT = String(port);
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [...nodeArgs, MAIN, "start"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  let logLines = 0;
  const hookTimes = [];
  const hookRequests = new Set();
  let partial = "";
  const log = args["studio-log"] ? createWriteStream(args["studio-log"]) : null;
  const onData = (chunk) => {
    log?.write(chunk);
    const text = chunk.toString();
    logLines += text.split("\n").length - 1;
    if (output.length < 100_000) output += text;
    // The server's own view of each hook call: "request completed" lines carry responseTime.
    const lines = (partial + text).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.includes("/api/hooks/") && !line.includes('"responseTime"')) continue;
      try {
        const entry = JSON.parse(line);
        if (entry.msg === "incoming request" && entry.req?.url?.startsWith("/api/hooks/"))
          hookRequests.add(entry.reqId);
        else if (entry.responseTime !== undefined && hookRequests.delete(entry.reqId))
          hookTimes.push(entry.responseTime);
      } catch {}
    }
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  for (;;) {
    if (exited) throw new Error(`studio exited:\n${output}`);
    const up = await fetch(`${url}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    child,
    dir,
    logLines: () => logLines,
    /** Server-side answer times of the hook calls since the last call (from the request log). */
    hookTimes: () => hookTimes.splice(0).sort((a, b) => a - b),
    async snapshot() {
      const written = new Promise((resolve) => setTimeout(resolve, 300));
      child.kill("SIGUSR2");
      await written;
      return JSON.parse(readFileSync(join(dir, "profile.json"), "utf8"));
    },
  };
}

async function call(base, method, path, body, auth) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(auth ? { authorization: `Bearer ${auth}` } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: await response.json() };
}

/**
 * Fires `count` hooks with `inflight` at a time; the answer latencies, sorted. With `db`, each
 * client waits for its run to end before its next hook (a closed loop over runs, not answers).
 */
async function fire(studio, key, workflowId, count, inflight, db = null) {
  const latencies = [];
  let next = 0;
  const refused = [];
  const endings = db ? runEndings(db) : null;
  const worker = async () => {
    while (next < count) {
      next++;
      const started = performance.now();
      const answer = await call(studio.url, "POST", `/api/hooks/workflows/${workflowId}/runs`, {}, key);
      latencies.push(performance.now() - started);
      if (answer.status !== 202) refused.push(answer.status);
      else if (endings) await endings.until(answer.body.data.run_id);
    }
  };
  await Promise.all(Array.from({ length: inflight }, worker));
  endings?.stop();
  if (refused.length > 0) throw new Error(`hooks refused: ${refused.slice(0, 5).join(", ")}`);
  return latencies.sort((a, b) => a - b);
}

/** Resolves `until(runId)` once the run has ended, polling the database every 5 ms. */
function runEndings(db) {
  const waiting = new Map();
  let stopped = false;
  const poll = async () => {
    while (!stopped) {
      if (waiting.size > 0)
        for (const id of await db.endedOf([...waiting.keys()])) {
          waiting.get(id)();
          waiting.delete(id);
        }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  void poll();
  return {
    until: (runId) => new Promise((resolve) => waiting.set(runId, resolve)),
    stop: () => {
      stopped = true;
    },
  };
}

async function untilEnded(db, workflowId, total) {
  for (;;) {
    if ((await db.ended(workflowId)) >= total) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The studio's runs as the database has them: its SQLite file, or with DATABASE_URL (a fresh
 * database the studio migrates) PostgreSQL through the backend's own driver.
 */
function runStore(dir) {
  if (process.env.DATABASE_URL) {
    const pg = createRequire(new URL("../backend/package.json", import.meta.url))("pg");
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
    return {
      ended: async (workflowId) =>
        Number(
          (
            await pool.query(`select count(*) n from runs where workflow_id = $1 and status in ${TERMINAL}`, [
              workflowId,
            ])
          ).rows[0].n,
        ),
      statusCounts: async (workflowId) =>
        (await pool.query("select status, count(*) n from runs where workflow_id = $1 group by status", [workflowId]))
          .rows,
      endedOf: async (ids) =>
        (await pool.query(`select id from runs where id = any($1) and status in ${TERMINAL}`, [ids])).rows.map(
          (row) => row.id,
        ),
      close: () => pool.end(),
    };
  }
  const db = new DatabaseSync(join(dir, "data", "superstep.db"), { readOnly: true });
  const ended = db.prepare(`select count(*) n from runs where workflow_id = ? and status in ${TERMINAL}`);
  const byStatus = db.prepare("select status, count(*) n from runs where workflow_id = ? group by status");
  const endedOf = db.prepare(
    `select id from runs where id in (select value from json_each(?)) and status in ${TERMINAL}`,
  );
  return {
    endedOf: async (ids) => endedOf.all(JSON.stringify(ids)).map((row) => row.id),
    ended: async (workflowId) => ended.get(workflowId).n,
    statusCounts: async (workflowId) => byStatus.all(workflowId),
    close: async () => db.close(),
  };
}

async function studioRound(studio, key, db, workflowId, state) {
  await studio.snapshot(); // reset the loop histogram and the counters
  const cpuBefore = cpuMs(studio.child.pid);
  const threadsBefore = threadCpuMs(studio.child.pid);
  const logBefore = studio.logLines();
  const started = performance.now();
  const latencies = await fire(studio, key, workflowId, RUNS, INFLIGHT);
  state.done += RUNS;
  await untilEnded(db, workflowId, state.done);
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuMs(studio.child.pid) - cpuBefore;
  const threads = Object.entries(threadCpuMs(studio.child.pid)).map(([name, t]) => [
    name,
    t - (threadsBefore[name] ?? 0),
  ]);
  const snap = await studio.snapshot();
  return { seconds, cpu, threads, latencies, snap, logLines: studio.logLines() - logBefore };
}

async function studioBench() {
  const dir = mkdtempSync(join(tmpdir(), "run-path-"));
  const studio = await startStudio(dir);
  const results = {};
  try {
    const setup = await call(studio.url, "POST", "/api/auth/setup", {
      email: "owner@example.com",
      password: "owner-password",
    });
    const token = setup.body.data.token;
    const key = (await call(studio.url, "POST", "/api/api-keys", { name: "bench" }, token)).body.data.key;
    const docs = documents();
    const db = runStore(dir);
    for (const name of GRAPHS) {
      const saved = await call(studio.url, "POST", "/api/workflows", docs[name], token);
      const workflowId = saved.body.data.id;
      const state = { done: 0 };
      // Warm up: compilation caches, JIT.
      await fire(studio, key, workflowId, 100, INFLIGHT);
      state.done += 100;
      await untilEnded(db, workflowId, state.done);
      const bare = args.bare ? await startBare(name) : null;
      const rounds = [];
      const bareRounds = [];
      for (let r = 0; r < ROUNDS; r++) {
        rounds.push(await studioRound(studio, key, db, workflowId, state));
        if (bare) bareRounds.push(await bare.round());
      }
      await bare?.stop();
      // Each studio round against the bare round right after it: the ratios of pairs taken at
      // nearly the same time are steadier than ratios of bests on a machine whose load drifts.
      const pairs = bareRounds.map((b, i) => ({
        cpu: rounds[i].cpu / RUNS / (b.cpu / RUNS),
        rate: b.seconds / rounds[i].seconds,
      }));
      const best = [...rounds].sort((a, b) => a.cpu - b.cpu)[0];
      const notOk = (await db.statusCounts(workflowId)).filter((row) => row.status !== "ok");
      if (notOk.length > 0) console.log(`  ${name}: runs not ok: ${JSON.stringify(notOk)}`);
      results[name] = best;
      const { seconds, cpu, threads, latencies, snap, logLines } = best;
      console.log(
        `studio ${name}: ${(RUNS / seconds).toFixed(1)} runs/s, CPU ${ms(cpu / RUNS)}/run, ` +
          `hook 202 p50 ${ms(percentile(latencies, 50))} p99 ${ms(percentile(latencies, 99))} max ${ms(latencies.at(-1))} at ${INFLIGHT} in flight, ` +
          `CPU by thread ${threads
            .filter(([, t]) => t > 0)
            .sort((a, b) => b[1] - a[1])
            .map(([n, t]) => `${n} ${ms(t / RUNS)}`)
            .join(", ")}, ` +
          `event-loop delay p50 ${ms(snap.loop.p50)} p99 ${ms(snap.loop.p99)} max ${ms(snap.loop.max)}, WAL syncs/run ${(snap.syncs.count / RUNS).toFixed(2)} (p50 ${ms(snap.syncs.p50)}, p99 ${ms(snap.syncs.p99)}), log lines/run ${(logLines / RUNS).toFixed(1)}`,
      );
      const gcLine = (kinds) =>
        Object.entries(kinds)
          .map(([kind, { n, ms: t }]) => `${kind} ${(n / RUNS).toFixed(2)}/run ${ms(t / RUNS)}/run`)
          .join(", ");
      console.log(
        `  heap used and GC pauses: main ${snap.mainHeapMb.toFixed(0)} MB, ${gcLine(snap.mainGc)}` +
          Object.entries(snap.threadHeapMb)
            .map(([id, mb]) => `; thread ${id} ${mb.toFixed(0)} MB, ${gcLine(snap.threadGc[id] ?? {})}`)
            .join(""),
      );
      for (const [id, spaces] of Object.entries(snap.threadSpaces))
        console.log(`  thread ${id}, alive after a full collection: ${spaces}`);
      if (bare) {
        const bestBare = [...bareRounds].sort((a, b) => a.cpu - b.cpu)[0];
        const byThread = bestBare.threads.filter(([, t]) => t > 0).sort((a, b) => b[1] - a[1]);
        const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
        const cpuRatio = median(pairs.map((p) => p.cpu));
        const rateRatio = median(pairs.map((p) => p.rate));
        console.log(
          `bare LangGraph.js ${name}: ${(RUNS / bestBare.seconds).toFixed(1)} runs/s, CPU ${ms(bestBare.cpu / RUNS)}/run (best round; by thread ${byThread.map(([n, t]) => `${n} ${ms(t / RUNS)}`).join(", ")}); ` +
            `studio/bare, median of ${pairs.length} paired round(s): CPU ${cpuRatio.toFixed(2)}× (target ≤ 1.30×), runs/s ${rateRatio.toFixed(2)}× (target ≥ 0.75×)` +
            ` [pairs: ${pairs.map((p) => p.cpu.toFixed(2)).join(", ")}]`,
        );
      }
      if (args["count-sql"]) {
        const perRun = Object.entries(snap.sql)
          .sort((a, b) => b[1] - a[1])
          .map(([kind, n]) => `${kind}: ${(n / RUNS).toFixed(1)}`)
          .join(", ");
        console.log(`  SQL per run: ${perRun}`);
        const timed = Object.entries(snap.times)
          .sort((a, b) => b[1] - a[1])
          .map(([kind, t]) => `${kind}: ${((1000 * t) / RUNS).toFixed(0)} µs`)
          .join(", ");
        console.log(`  SQL time per run: ${timed}`);
        const threadPerRun = Object.entries(snap.threadSql)
          .sort((a, b) => b[1] - a[1])
          .map(([kind, n]) => `${kind}: ${(n / RUNS).toFixed(1)}`)
          .join(", ");
        console.log(`  run thread, SQL per run: ${threadPerRun}`);
        const threadTimed = Object.entries(snap.threadTimes)
          .sort((a, b) => b[1] - a[1])
          .map(([kind, t]) => `${kind}: ${((1000 * t) / RUNS).toFixed(0)} µs`)
          .join(", ");
        console.log(`  run thread, SQL time per run: ${threadTimed}`);
      }
    }
    // Hooks at PROBE in flight while chain runs execute.
    if (GRAPHS.includes("chain10") && PROBE > 0) {
      const saved = await call(studio.url, "POST", "/api/workflows", { ...docs.chain10, name: "probe" }, token);
      const workflowId = saved.body.data.id;
      await studio.snapshot();
      studio.hookTimes();
      const latencies = await fire(studio, key, workflowId, RUNS, PROBE, args.closed ? db : null);
      const served = studio.hookTimes();
      await untilEnded(db, workflowId, RUNS);
      const snap = await studio.snapshot();
      results.probe = { latencies, snap };
      console.log(
        `studio hook answer at ${PROBE} in flight${args.closed ? " (closed loop over runs)" : ""} while chain10 runs execute: p50 ${ms(percentile(latencies, 50))} p99 ${ms(percentile(latencies, 99))} max ${ms(latencies.at(-1))}; event-loop delay p99 ${ms(snap.loop.p99)} max ${ms(snap.loop.max)}; GC pauses ${snap.gc.count}, longest ${ms(snap.gc.max)}; WAL syncs ${snap.syncs.count}, p50 ${ms(snap.syncs.p50)} p99 ${ms(snap.syncs.p99)} max ${ms(snap.syncs.max)}`,
      );
      if (served.length > 0)
        console.log(
          `  the same calls as the server timed them (request log): p50 ${ms(percentile(served, 50))} p99 ${ms(percentile(served, 99))} max ${ms(served.at(-1))}`,
        );
      if (args["count-sql"] && Object.keys(snap.slow).length > 0)
        console.log(`  statements over 20 ms: ${JSON.stringify(snap.slow)}`);
    }
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${studio.child.pid}/status`, "utf8"))[1]) / 1024;
    console.log(`studio resident memory at the end: ${rss.toFixed(0)} MB`);
    await db.close();
  } finally {
    const exited = new Promise((resolve) => studio.child.once("exit", resolve));
    studio.child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

// ---- bare LangGraph.js with the official SQLite saver (child process) ----

async function bareChild(graphName) {
  const require = createRequire(join(resolve(args.bare), "package.json"));
  const load = (name) => import(pathToFileURL(require.resolve(name)).href);
  const { Annotation, END, START, StateGraph } = await load("@langchain/langgraph");
  const { SqliteSaver } = await load("@langchain/langgraph-checkpoint-sqlite");
  const dir = mkdtempSync(join(tmpdir(), "bare-"));
  const saver = SqliteSaver.fromConnString(join(dir, "bare.db"));
  let graph;
  if (graphName === "hello") {
    const g = new StateGraph(
      Annotation.Root({ greeting: Annotation({ reducer: (_a, b) => b, default: () => "Hello" }) }),
    );
    g.addEdge(START, END);
    graph = g.compile({ checkpointer: saver });
  } else if (graphName === "chain10") {
    const ids = Array.from({ length: 10 }, (_, i) => `n${i}`);
    const g = new StateGraph(
      Annotation.Root({
        log: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
        route: Annotation({ reducer: (a, b) => ({ ...a, ...b }), default: () => ({}) }),
      }),
    );
    for (const id of ids) g.addNode(id, async () => ({ route: { [id]: "next" } }));
    g.addEdge(START, "n0");
    for (const [i, id] of ids.entries())
      g.addConditionalEdges(id, (s) => s.route[id], { next: i + 1 < 10 ? ids[i + 1] : END });
    graph = g.compile({ checkpointer: saver });
  } else {
    const g = new StateGraph(
      Annotation.Root({ route: Annotation({ reducer: (a, b) => ({ ...a, ...b }), default: () => ({}) }) }),
    );
    for (let i = 0; i < 8; i++) g.addNode(`b${i}`, async () => ({ route: { [`b${i}`]: "next" } }));
    g.addNode("j", async () => ({}), { defer: true });
    for (let i = 0; i < 8; i++) {
      g.addEdge(START, `b${i}`);
      g.addConditionalEdges(`b${i}`, (s) => s.route[`b${i}`], { next: "j" });
    }
    g.addEdge("j", END);
    graph = g.compile({ checkpointer: saver });
  }
  let thread = 0;
  const round = async (count) => {
    let next = 0;
    const worker = async () => {
      while (next < count) {
        next++;
        await graph.invoke({}, { configurable: { thread_id: `t${thread++}` }, durability: "sync" });
      }
    };
    await Promise.all(Array.from({ length: INFLIGHT }, worker));
  };
  await round(100);
  // Rounds on request, so that they interleave with the studio's (the load of the machine drifts).
  process.on("message", async (message) => {
    if (message === "exit") {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    }
    const { Session } = await import("node:inspector/promises");
    const session = args["alloc-prof"] ? new Session() : null;
    session?.connect();
    await session?.post("HeapProfiler.startSampling", {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: !args["alloc-survivors"],
    });
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await round(RUNS);
    if (session) {
      const { profile } = await session.post("HeapProfiler.stopSampling");
      writeFileSync(join(args["alloc-prof"], `bare-${graphName}-${Date.now()}.heapprofile`), JSON.stringify(profile));
      session.disconnect();
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    process.send({ seconds, cpu: (cpu.user + cpu.system) / 1000 });
  });
  process.send("ready");
}

/** The bare LangGraph.js process of one graph: `round()` runs RUNS runs and reports. */
async function startBare(name) {
  const child = spawn(
    process.execPath,
    [fileURLToPath(import.meta.url), ...process.argv.slice(2), "--bare-child", name],
    {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    },
  );
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  // A bare child that dies (a missing package, say) fails the bench instead of leaving it waiting.
  const next = () =>
    new Promise((resolve, reject) => {
      if (exited) return reject(new Error("the bare LangGraph.js child exited"));
      const onExit = (code) => reject(new Error(`the bare LangGraph.js child exited with ${code}`));
      child.once("exit", onExit);
      child.once("message", (message) => {
        child.off("exit", onExit);
        resolve(message);
      });
    });
  await next();
  return {
    round: async () => {
      const before = threadCpuMs(child.pid);
      const reply = next();
      child.send("round");
      const result = await reply;
      const threads = Object.entries(threadCpuMs(child.pid)).map(([n, t]) => [n, t - (before[n] ?? 0)]);
      return { ...result, threads };
    },
    stop: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.send("exit");
      await exited;
    },
  };
}

if (args["bare-child"]) {
  await bareChild(args["bare-child"]);
} else {
  console.log(
    `${RUNS} hook-triggered runs per graph at ${INFLIGHT} in flight (best of ${ROUNDS} round(s) after 100 to warm up)`,
  );
  await studioBench();
}
