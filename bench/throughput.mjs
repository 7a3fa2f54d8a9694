// Durable runs through a real studio against bare LangGraph.js with its own SQLite checkpointer:
// completed hook-triggered runs per second and CPU milliseconds per run on three graphs (start →
// end, a 10-node chain of Conditions, an 8-way fan-out with a Join), hook answer latency at 20 and
// 100 in flight, resident memory idle / after 1,000 runs / after 10,000 runs, and what 10,000 runs
// waiting at a Human node cost and how fast one of them resumes. Prints each figure beside its
// target; asserts nothing.
// Run: npm run build && npm install --prefix bench && node bench/throughput.mjs [--runs N] [--quick]
//      [--postgres] (or DATABASE_URL=postgres://… to use that server)
//      node bench/throughput.mjs --redis [--quick]: the Redis mode (an API process and 1, then 2,
//      workers on PostgreSQL + Redis) against the embedded mode.
import { fork, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { benchArgs, usageError, wholeNumber } from "./bench-args.mjs";
import { collectEveryThread } from "./thread-heaps.mjs";

const USAGE = `node bench/throughput.mjs [options]
  --runs N               runs per round (default 600)
  --quick                skip topping up to 10,000 runs for the memory figure
  --warmup N             studio runs before the rounds, spread over the graphs (default 1000)
  --total N              runs after which memory is read again (default 10000)
  --waiting N            runs left waiting at a Human node (default 10000; 0 skips)
  --resume-sample N      waiting runs resumed one by one (default 200)
  --postgres             start a throwaway PostgreSQL cluster (Debian binaries) for the studio
  --cpu-prof DIR         run the studio under --cpu-prof, profiles written to DIR at its exit
  --log-level L          the studio's STUDIO_LOG_LEVEL (default info, the production default)
  --graphs LIST          some of hello,chain10,fanout8 (default all three)
  --poll-ms N            how often the observer reads the runs it waits for (default 2)
  --observe WAY          how the bench sees a studio run of the rounds at 20 in flight end: hook (default:
                         the hook waits for its run, ?wait=, and answers with its end, as invoke() returns
                         to bare's caller) or database (the hook answers 202 and an observer reads the
                         runs table, as before). With hook, one more round per graph answers 202s to
                         time them; the 100-in-flight round always times 202s and reads the table
                         (--redis always reads the table)
  --pg-statements        (PostgreSQL) print PostgreSQL's own time per statement over the rounds
                         (pg_stat_statements: loaded into --postgres's cluster; on DATABASE_URL's
                         server, only if its library is already loaded there)
  --redis                the Redis mode instead: PostgreSQL + Redis (both started here, unless DATABASE_URL),
                         one API process and 1, then 2, superstep worker processes, against the embedded
                         mode; chain10 and http3 (3 HTTP tools to a loopback server answering after 100 ms)
  --concurrency N        (--redis) runs each worker (and the embedded studio) executes at once (default 8)
  --in-flight N          (--redis) hooks in flight (default 4 × concurrency)
  --io-runs N            (--redis) http3 runs per round (default 400)
  --rounds N             (--redis) rounds per deployment and graph (default 2; embedded and one worker interleaved)
  --quick                (--redis) one round of 200 chain10 and 150 http3 runs, 100 warm-up, 2,000 waiting
With DATABASE_URL set, the studio uses a fresh database (or schema) on that server.`;

const GRAPHS = ["hello", "chain10", "fanout8"];
const IN_FLIGHT = 20;
const IN_FLIGHT_HIGH = 100;
let POLL_MS = 2; // --poll-ms
let OBSERVE = "hook"; // --observe
// The longest a hook may wait for its run (the studio's limit).
const HOOK_WAIT_SECONDS = 300;
// A run or request that takes longer than this counts as failed instead of stalling the bench.
const RUN_PATIENCE_MS = 600_000;
const REQUEST_PATIENCE_MS = 120_000;
const TERMINAL = new Set(["ok", "error", "cancelled", "timeout", "expired"]);
const TARGET = {
  cpuRatio: 1.3,
  cpuRatioStretch: 1.0,
  rateRatio: 0.75,
  hookP99HighMs: 50,
  idleMb: 150,
  growth: 0.1,
  waitingMb: 50,
  resumeAcceptP95Ms: 20,
  resumeNextNodeP95Ms: 100,
};
const BENCH_DIR = fileURLToPath(new URL(".", import.meta.url));
const STUDIO_ENTRY = fileURLToPath(new URL("../backend/dist/cli/main.js", import.meta.url));
const SAVER_PACKAGE = join(BENCH_DIR, "node_modules/@langchain/langgraph-checkpoint-sqlite/package.json");

// ---------------------------------------------------------------------------------------------
// The workflows: studio documents and the same graphs written by hand in LangGraph.js.

const at = { x: 0, y: 0 };
const condition = (id) => ({ id, type: "condition", position: at, data: { rules: [], default_label: "next" } });

function studioDocument(name) {
  if (name === "hello") {
    return {
      name: "bench hello",
      state: [{ name: "greeting", type: "string", default: "Hello" }],
      nodes: [],
      edges: [{ id: "e", source: "start", target: "end" }],
    };
  }
  const log = [{ name: "log", type: "list", reducer: "append" }];
  if (name === "chain10") {
    const edges = [{ id: "s", source: "start", target: "n0" }];
    for (let i = 0; i < 10; i++)
      edges.push({ id: `e${i}`, source: `n${i}`, target: i < 9 ? `n${i + 1}` : "end", label: "next" });
    return {
      name: "bench chain10",
      state: log,
      nodes: Array.from({ length: 10 }, (_, i) => condition(`n${i}`)),
      edges,
    };
  }
  if (name === "fanout8") {
    const nodes = [
      ...Array.from({ length: 8 }, (_, i) => condition(`b${i}`)),
      { id: "j", type: "join", position: at, data: {} },
    ];
    const edges = [{ id: "end", source: "j", target: "end" }];
    for (let i = 0; i < 8; i++) {
      edges.push(
        { id: `s${i}`, source: "start", target: `b${i}` },
        { id: `e${i}`, source: `b${i}`, target: "j", label: "next" },
      );
    }
    return { name: "bench fanout8", state: log, nodes, edges };
  }
  // A run that stops at a Human node; the node after it is the one whose start is timed.
  return {
    name: "bench waiting",
    state: [...log, { name: "answer", type: "object" }],
    nodes: [
      {
        id: "ask",
        type: "human",
        position: at,
        data: {
          message: "Go on?",
          fields: [{ name: "approved", type: "boolean", required: true }],
          output_field: "answer",
        },
      },
      condition("after"),
    ],
    edges: [
      { id: "s", source: "start", target: "ask" },
      { id: "a", source: "ask", target: "after" },
      { id: "e", source: "after", target: "end", label: "next" },
    ],
  };
}

/** The same graphs by hand (as bench/engine.mjs writes them), compiled with `checkpointer`. */
function bareGraphs({ Annotation, END, START, StateGraph }, checkpointer) {
  const merge = () => Annotation({ reducer: (a, b) => ({ ...a, ...b }), default: () => ({}) });
  const append = () => Annotation({ reducer: (a, b) => a.concat(b), default: () => [] });
  const hello = new StateGraph(Annotation.Root({ greeting: Annotation() })).addEdge(START, END);

  const chain = new StateGraph(Annotation.Root({ log: append(), route: merge() }));
  const ids = Array.from({ length: 10 }, (_, i) => `n${i}`);
  for (const id of ids) chain.addNode(id, async () => ({ route: { [id]: "next" } }));
  chain.addEdge(START, "n0");
  for (const [i, id] of ids.entries()) chain.addConditionalEdges(id, (s) => s.route[id], { next: ids[i + 1] ?? END });

  const fan = new StateGraph(Annotation.Root({ log: append(), route: merge() }));
  for (let i = 0; i < 8; i++) fan.addNode(`b${i}`, async () => ({ route: { [`b${i}`]: "next" } }));
  fan.addNode("j", async () => ({}), { defer: true });
  for (let i = 0; i < 8; i++) {
    fan.addEdge(START, `b${i}`);
    fan.addConditionalEdges(`b${i}`, (s) => s.route[`b${i}`], { next: "j" });
  }
  fan.addEdge("j", END);
  return {
    hello: { graph: hello.compile({ checkpointer }), input: () => ({ greeting: "Hello" }) },
    chain10: { graph: chain.compile({ checkpointer }), input: () => ({}) },
    fanout8: { graph: fan.compile({ checkpointer }), input: () => ({}) },
  };
}

// ---------------------------------------------------------------------------------------------
// Small helpers: statistics, /proc readings, printing.

const percentile = (values, p) => {
  if (values.length === 0) return Number.NaN;
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)];
};
const fixed = (value, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "—");
const mb = (kb) => kb / 1024;
const yes = (met) => (met ? "met" : "MISSED");

const CLK_TCK = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout) || 100;

function readStat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
    // Fields 4 (ppid) and 14–17 (utime, stime, cutime, cstime) of proc(5), counted after the name.
    return { ppid: Number(rest[1]), ticks: Number(rest[11]) + Number(rest[12]) + Number(rest[13]) + Number(rest[14]) };
  } catch {
    return null;
  }
}

/** The process and its live descendants (sandboxes, pools): pid list. */
function processTree(root) {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (!stat) continue;
    if (!children.has(stat.ppid)) children.set(stat.ppid, []);
    children.get(stat.ppid).push(Number(entry));
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]) ?? []));
  return tree;
}

/** CPU milliseconds used so far by a process and its children (finished ones included). */
function cpuMs(root) {
  let ticks = 0;
  for (const pid of processTree(root)) ticks += readStat(pid)?.ticks ?? 0;
  return (ticks * 1000) / CLK_TCK;
}

function rssKb(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Resident memory of the process alone and of its tree (children such as sandbox pools). */
function memory(root) {
  const tree = processTree(root);
  return { own: rssKb(root), tree: tree.reduce((sum, pid) => sum + rssKb(pid), 0), processes: tree.length };
}

const memoryText = (m) =>
  m.processes > 1
    ? `${fixed(mb(m.own))} MB (with its ${m.processes - 1} child process(es): ${fixed(mb(m.tree))} MB)`
    : `${fixed(mb(m.own))} MB`;

/** Waits until the process tree has been nearly idle (< 3 % of a core) for a second, at most 15 s. */
async function quiet(pid) {
  const deadline = performance.now() + 15_000;
  let last = cpuMs(pid);
  let calm = 0;
  while (performance.now() < deadline && calm < 2) {
    await sleep(500);
    const now = cpuMs(pid);
    calm = now - last <= 15 ? calm + 1 : 0;
    last = now;
  }
}

/** A full garbage collection in every thread of the studio, through its inspector. */
async function collectGarbage(inspectorUrl) {
  const socket = new WebSocket(inspectorUrl);
  const replies = new Map();
  const listeners = new Map();
  let nextId = 1;
  try {
    await new Promise((resolve, reject) => {
      socket.onerror = () => reject(new Error("the studio's inspector refused the connection"));
      socket.onopen = resolve;
    });
    socket.onmessage = (message) => {
      const data = JSON.parse(message.data);
      if (data.id !== undefined) {
        const reply = replies.get(data.id);
        replies.delete(data.id);
        if (data.error) reply?.reject(new Error(data.error.message));
        else reply?.resolve(data.result);
      } else listeners.get(data.method)?.(data.params);
    };
    const cdp = {
      send: (method, params = {}) =>
        new Promise((resolve, reject) => {
          const id = nextId++;
          replies.set(id, { resolve, reject });
          socket.send(JSON.stringify({ id, method, params }));
        }),
      on: (event, listener) => listeners.set(event, listener),
    };
    let timer;
    await Promise.race([
      collectEveryThread(cdp),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error("the studio's inspector did not answer in 60 s")), 60_000);
      }),
    ]).finally(() => clearTimeout(timer));
  } finally {
    socket.close();
  }
}

/**
 * The studio's resident memory once it is quiet (`rss`), then again after a full garbage
 * collection (`collected`): what it holds on to, without the garbage it has not collected yet.
 */
async function readMemory(studio) {
  await quiet(studio.pid);
  const rss = memory(studio.pid);
  await collectGarbage(studio.inspector);
  await sleep(500);
  return { rss, collected: memory(studio.pid) };
}

const memoryPairText = (m) => `${memoryText(m.rss)}; after a full garbage collection ${memoryText(m.collected)}`;

function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join("  ");
  console.log(line(headers));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows) console.log(line(row));
}

const loadText = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

// ---------------------------------------------------------------------------------------------
// Clean-up: every process, database and directory the bench makes is taken down on exit, error
// or interrupt.

const cleanups = [];
const exitKills = new Set();
let cleaning = null;
function cleanup() {
  cleaning ??= (async () => {
    for (const step of cleanups.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        console.error(`clean-up: ${error.message}`);
      }
    }
  })();
  return cleaning;
}
process.once("exit", () => {
  for (const kill of exitKills) kill();
});
let interrupted = false;
function onSignals() {
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, async () => {
      interrupted = true;
      console.error(`\n${signal}: stopping the studio and the bare processes…`);
      await cleanup();
      process.exit(130);
    });
  }
}

function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  cleanups.push(remove);
  exitKills.add(remove);
  return dir;
}

/** A child process that dies with the bench whatever happens. */
function reaped(child, name) {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  exitKills.add(kill);
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => {
        console.error(`${name} did not stop in 60 s: killed`);
        kill();
      }, 60_000);
      await exited;
      clearTimeout(timer);
    }
    exitKills.delete(kill);
  });
  return exited;
}

// ---------------------------------------------------------------------------------------------
// The bare process: LangGraph.js with an official saver, driven over IPC. `spec` is
// { kind: "sqlite", file, synchronous } (the baseline of the targets) or { kind: "postgres", url,
// schema } (the official PostgreSQL saver on the studio's server, for context).

async function openBareSaver(spec) {
  const version = (name) =>
    JSON.parse(readFileSync(join(BENCH_DIR, `node_modules/${name}/package.json`), "utf8")).version;
  if (spec.kind === "postgres") {
    const { PostgresSaver } = await import("@langchain/langgraph-checkpoint-postgres");
    const saver = PostgresSaver.fromConnString(spec.url, spec.schema ? { schema: spec.schema } : undefined);
    await saver.setup();
    return {
      saver,
      info: () => ({
        langgraph: version("@langchain/langgraph"),
        saver: version("@langchain/langgraph-checkpoint-postgres"),
        poolMax: saver.pool.options.max,
      }),
    };
  }
  const { SqliteSaver } = await import("@langchain/langgraph-checkpoint-sqlite");
  const saver = SqliteSaver.fromConnString(spec.file);
  // The saver turns WAL on in setup(), which better-sqlite3's build makes synchronous NORMAL.
  saver.setup();
  if (spec.synchronous) saver.db.pragma(`synchronous = ${spec.synchronous}`);
  return {
    saver,
    info: () => ({
      langgraph: version("@langchain/langgraph"),
      saver: version("@langchain/langgraph-checkpoint-sqlite"),
      journal: saver.db.pragma("journal_mode", { simple: true }),
      synchronous: saver.db.pragma("synchronous", { simple: true }),
    }),
  };
}

async function bareChild(spec) {
  const langgraph = await import("@langchain/langgraph");
  const { saver, info } = await openBareSaver(spec);
  const graphs = bareGraphs(langgraph, saver);
  let thread = 0;
  process.on("message", async (message) => {
    if (message.cmd === "info") {
      process.send(info());
      return;
    }
    const { graph, input } = graphs[message.graph];
    const latencies = [];
    let issued = 0;
    let failures = 0;
    let firstError = null;
    const cpu = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: message.inFlight }, async () => {
        while (issued < message.runs) {
          issued++;
          const begun = performance.now();
          try {
            await graph.invoke(input(), { configurable: { thread_id: `bare-${thread++}` }, durability: "sync" });
            latencies.push(performance.now() - begun);
          } catch (error) {
            failures++;
            firstError ??= String(error);
          }
        }
      }),
    );
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    process.send({ wallMs, latencies, failures, firstError, selfCpuMs: (used.user + used.system) / 1000 });
  });
  process.send({ ready: true });
}

async function startBare(spec) {
  const child = fork(fileURLToPath(import.meta.url), ["--bare-child", JSON.stringify(spec)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = reaped(child, "the bare process");
  const next = () =>
    new Promise((resolve, reject) => {
      const onExit = (code) => reject(new Error(`the bare process exited with ${code}`));
      child.once("exit", onExit);
      child.once("message", (message) => {
        child.off("exit", onExit);
        resolve(message);
      });
    });
  await next();
  const ask = (message) => {
    const answer = next();
    child.send(message);
    return answer;
  };
  return {
    pid: child.pid,
    info: () => ask({ cmd: "info" }),
    async round(graph, runs, inFlight) {
      const cpu = cpuMs(child.pid);
      const result = await ask({ cmd: "round", graph, runs, inFlight });
      const cpuUsed = cpuMs(child.pid) - cpu;
      const completed = runs - result.failures;
      return {
        completed,
        failures: result.failures,
        firstError: result.firstError,
        wallMs: result.wallMs,
        cpuMs: cpuUsed,
        selfCpuMs: result.selfCpuMs,
        runLatencies: result.latencies,
      };
    },
    exited,
  };
}

// ---------------------------------------------------------------------------------------------
// The studio: a real `superstep start`, its database, an HTTP client and a run observer.

/** A fresh PostgreSQL database (or, without the right to create one, a fresh schema) on `url`. */
async function freshPostgres(url) {
  const { default: pg } = await import("pg");
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const name = `superstep_bench_${randomBytes(5).toString("hex")}`;
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const target = new URL(url);
    target.pathname = `/${name}`;
    cleanups.push(async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    });
    return { url: target.toString(), where: `database ${name}` };
  } catch (error) {
    if (error.code !== "42501") throw error;
    // No CREATEDB: a schema of our own in the given database, first on the search path.
    await admin.query(`CREATE SCHEMA ${name}`);
    const target = new URL(url);
    target.searchParams.set("options", `-c search_path=${name}`);
    cleanups.push(async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
      await client.end();
    });
    return { url: target.toString(), where: `schema ${name}`, schema: name };
  } finally {
    await admin.end();
  }
}

function studioEnvironment(options, dataDir, databaseUrl) {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const limits = {
    STUDIO_WORKER_CONCURRENCY: String(IN_FLIGHT),
    STUDIO_USER_MAX_RUNS: String(IN_FLIGHT),
    STUDIO_USER_MAX_QUEUED: "1000000",
    STUDIO_USER_RUN_RATE: "100000",
    STUDIO_HOOK_RATE_LIMIT: "1000000",
  };
  return {
    limits,
    env: {
      ...env,
      ...limits,
      STUDIO_DATA_DIR: dataDir,
      STUDIO_HOST: "127.0.0.1",
      STUDIO_PORT: "0",
      STUDIO_LOG_LEVEL: options["log-level"],
      STUDIO_LOG_FORMAT: "json",
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    },
  };
}

/**
 * `superstep start` (resolves with its port once it listens), or `superstep worker` (its liveness
 * port); either way with its inspector's address.
 */
function startStudio(env, cpuProfDir, command = "start") {
  // The inspector (loopback, a free port) lets the bench ask for a full garbage collection.
  const flags = ["--inspect=127.0.0.1:0", ...(cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${cpuProfDir}`] : [])];
  const child = spawn(process.execPath, [...flags, STUDIO_ENTRY, command], {
    env: command === "worker" ? { STUDIO_WORKER_HEALTH_PORT: "0", ...env } : env,
  });
  const ready = command === "worker" ? /liveness on http:\/\/[^:]+:(\d+)\/health/ : /running on http:\/\/[^:]+:(\d+)/;
  const exited = reaped(child, "the studio");
  let output = "";
  // The last lines it wrote, to show if it stops on its own.
  let tail = [];
  let stopping = false;
  cleanups.push(() => {
    stopping = true;
  });
  child.once("exit", (code, signal) => {
    if (stopping || output !== null) return;
    console.error(
      `\nThe studio exited by itself (code ${code}, signal ${signal}); its last lines:\n${tail.join("\n")}`,
    );
  });
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      tail = [...tail, ...chunk.toString().split("\n").filter(Boolean)].slice(-20);
      if (output === null) return; // started: keep draining the pipe
      output += chunk.toString();
      const match = ready.exec(output);
      const inspector = /Debugger listening on (ws:\/\/\S+)/.exec(output);
      if (!match || !inspector) return;
      output = null;
      resolve({
        child,
        pid: child.pid,
        port: Number(match[1]),
        inspector: inspector[1],
        exited,
        // The bench stops it on purpose: its exit is not reported as a surprise.
        stopping: () => {
          stopping = true;
        },
      });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`the studio exited with ${code}:\n${output}`)));
  });
}

// Idle connections are dropped after 30 s, well before the server's keep-alive timeout (72 s), so a
// request never goes out on a connection the server is closing (ECONNRESET) after a long bare round.
const agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: 30_000 });

/** One JSON request over a kept-alive connection; resolves with status, body and headers. */
function call(port, method, path, { body, token } = {}) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        agent,
        headers: {
          ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString();
          let parsed = null;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            parsed = { raw: text };
          }
          resolve({ status: res.statusCode, body: parsed, headers: res.headers });
        });
        res.on("error", reject);
      },
    );
    req.setTimeout(REQUEST_PATIENCE_MS, () => req.destroy(new Error(`no answer in ${REQUEST_PATIENCE_MS / 1000} s`)));
    req.on("error", reject);
    req.end(payload);
  });
}

async function must(port, method, path, options, expected) {
  const answer = await call(port, method, path, options);
  if (answer.status !== expected)
    throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 500)}`);
  return answer.body.data;
}

/**
 * PostgreSQL's own account of the time it spends on the studio's statements (pg_stat_statements),
 * for --pg-statements: reset before the rounds, read after them. Read from the admin database, for
 * the studio's database alone (other sessions on that database count too); top-level statements,
 * so what a statement runs inside it (foreign-key checks) is in its own time and no time is counted
 * twice. `unavailable` says why it cannot be read.
 */
async function startStatements(adminUrl, databaseUrl) {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  cleanups.push(() => client.end());
  const { rows: loaded } = await client.query(
    "SELECT current_setting('shared_preload_libraries') AS libraries, " +
      "EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_stat_statements') AS installed",
  );
  if (!/(^|[\s,])pg_stat_statements($|[\s,])/.test(loaded[0].libraries))
    return { unavailable: "pg_stat_statements is not in this server's shared_preload_libraries" };
  // Created where it was missing, and dropped again at the end: the server is left as it was.
  if (!loaded[0].installed) {
    await client.query("CREATE EXTENSION pg_stat_statements");
    cleanups.push(() => client.query("DROP EXTENSION IF EXISTS pg_stat_statements"));
  }
  const database = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  return {
    reset: () => client.query("SELECT pg_stat_statements_reset()"),
    read: async () =>
      (
        await client.query(
          `SELECT calls::float8 AS calls, total_exec_time AS ms, query FROM pg_stat_statements s
             JOIN pg_database d ON d.oid = s.dbid
            WHERE d.datname = $1 AND s.toplevel
            ORDER BY total_exec_time DESC`,
          [database],
        )
      ).rows,
  };
}

/** A statement's text on one line; one that inserts after a WITH says into which tables, in order. */
function statementLabel(query) {
  const text = query.replace(/\s+/g, " ").trim();
  const tables = [...new Set([...text.matchAll(/insert into "?(\w+)"?/gi)].map((match) => match[1]))];
  if (tables.length > 0 && !/^insert\b/i.test(text)) return `${text.slice(0, 48)}… (inserts into ${tables.join(", ")})`;
  return text.length > 110 ? `${text.slice(0, 109)}…` : text;
}

/** Prints the statements' table for `runs` studio runs: the costliest first, the bench's observer apart. */
function printStatements(rows, runs, limit = 15) {
  const msOf = (list) => list.reduce((sum, row) => sum + row.ms, 0);
  const perRun = (ms) => fixed((ms * 1000) / runs, 1);
  const observer = rows.filter((row) => row.query === OBSERVER_SQL);
  const studio = rows.filter((row) => row.query !== OBSERVER_SQL);
  const rest = studio.slice(limit);
  table(
    ["calls/run", "µs/call", "µs/run", "statement"],
    [
      ...studio
        .slice(0, limit)
        .map((row) => [
          fixed(row.calls / runs, 2),
          fixed((row.ms * 1000) / row.calls, 1),
          perRun(row.ms),
          statementLabel(row.query),
        ]),
      ...(rest.length > 0 ? [["", "", perRun(msOf(rest)), `${rest.length} more statements`]] : []),
    ],
  );
  console.log(
    `all the studio's statements: ${perRun(msOf(studio))} µs per run` +
      (observer.length > 0 ? `; the bench's observer: ${perRun(msOf(observer))} µs per run, apart` : ""),
  );
}

// The observer's read on PostgreSQL (--pg-statements counts its time apart).
const OBSERVER_SQL = "SELECT id, status, error FROM runs WHERE id = ANY($1)";

/**
 * Knows when runs reach a status by reading their rows straight from the studio's database,
 * every POLL_MS, by primary key: no request to the studio, so it costs the studio no CPU. The
 * status is written in the same transaction as the run's ending event, so `ok` here is final.
 * On PostgreSQL the read is a prepared statement: its backend shares the cores with the studio's,
 * and a poll that is not parsed and planned again costs it about a third less.
 */
async function startObserver(kind, where) {
  let query;
  let close;
  let backendPid = null;
  if (kind === "sqlite") {
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(where, { readOnly: true });
    db.exec("PRAGMA busy_timeout = 5000");
    const statement = db.prepare("SELECT id, status, error FROM runs WHERE id IN (SELECT value FROM json_each(?))");
    query = async (ids) => statement.all(JSON.stringify(ids));
    close = async () => db.close();
  } else {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: where });
    await client.connect();
    backendPid = (await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
    query = async (ids) => (await client.query({ name: "bench-observer", text: OBSERVER_SQL, values: [ids] })).rows;
    close = () => client.end();
  }
  const pending = new Map();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      if (pending.size > 0) {
        const now = performance.now();
        for (const row of await query([...pending.keys()])) {
          const waiter = pending.get(row.id);
          if (!waiter) continue;
          if (TERMINAL.has(row.status) || row.status === waiter.status) {
            pending.delete(row.id);
            waiter.resolve({ status: row.status, error: row.error, at: now });
          } else if (now > waiter.deadline) {
            pending.delete(row.id);
            waiter.resolve({
              status: row.status,
              error: `still ${row.status} after ${RUN_PATIENCE_MS / 1000} s`,
              at: now,
            });
          }
        }
      }
      await sleep(POLL_MS);
    }
  })();
  return {
    /** The PostgreSQL server process serving the observer's own queries (its CPU is not the studio's). */
    backendPid,
    /** Resolves once the run reaches `status` or ends (or has not, after RUN_PATIENCE_MS). */
    until: (runId, status = "ok") =>
      new Promise((resolve) => pending.set(runId, { status, resolve, deadline: performance.now() + RUN_PATIENCE_MS })),
    async stop() {
      stopped = true;
      await loop;
      await close();
    },
  };
}

/**
 * CPU used so far by a local PostgreSQL server for the studio: the postmaster and every backend
 * (ended ones included), less the backend that answers the bench's own observer. Null when the
 * server is not a process on this machine.
 */
function databaseCpuMs(studio) {
  if (!studio.databasePid) return null;
  return cpuMs(studio.databasePid) - (observerCpuMs(studio) ?? 0);
}

/** CPU used so far by the PostgreSQL backend that answers the bench's observer (null on SQLite). */
function observerCpuMs(studio) {
  return studio.databasePid && studio.observer.backendPid ? cpuMs(studio.observer.backendPid) : null;
}

/** The pid of the PostgreSQL server behind a connection, when it runs on this machine (else null). */
async function postgresServerPid(client) {
  const backend = (await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
  const stat = readStat(backend);
  if (!stat) return null;
  try {
    return readFileSync(`/proc/${stat.ppid}/comm`, "utf8").trim() === "postgres" ? stat.ppid : null;
  } catch {
    return null;
  }
}

/** CPU used so far by the studio: its one process, or (Redis mode) the API and every worker. */
function studioCpuMs(studio) {
  return (studio.pids?.() ?? [studio.pid]).reduce((sum, pid) => sum + cpuMs(pid), 0);
}

/**
 * Closed loop, like the bare process: `inFlight` clients, each triggering a run through the hook
 * and triggering the next one once it has reached `status`.
 *
 * Hook latencies are taken while runs execute: each client's first hook goes out with all the
 * others as the round opens, before any of its runs executes (most on a new connection), and is
 * kept apart as the opening burst (`openingLatencies`).
 */
async function studioRound(studio, workflowId, runs, inFlight, status = "ok", observe = OBSERVE) {
  const waits = observe === "hook";
  const hookLatencies = [];
  const openingLatencies = [];
  const runLatencies = [];
  const failures = [];
  let issued = 0;
  const cpu = studioCpuMs(studio);
  const dbCpu = databaseCpuMs(studio);
  const observerCpu = observerCpuMs(studio);
  const redisCpu = studio.redisPid ? cpuMs(studio.redisPid) : null;
  const own = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      let opening = true;
      while (issued < runs) {
        issued++;
        const begun = performance.now();
        let answer;
        try {
          const wait = waits ? `?wait=${HOOK_WAIT_SECONDS}` : "";
          answer = await call(studio.port, "POST", `/api/hooks/workflows/${workflowId}/runs${wait}`, {
            body: { input: {} },
            token: studio.key,
          });
        } catch (error) {
          failures.push(`hook request failed: ${error.message}`);
          continue;
        }
        if (waits && answer.status === 200) {
          // The hook waited for the run's turn to end and says how.
          const ended = answer.body.data;
          if (ended.status !== status)
            failures.push(`run ${ended.status} ${JSON.stringify(ended.error)}`.slice(0, 300));
          else runLatencies.push(performance.now() - begun);
          continue;
        }
        if (!waits) (opening ? openingLatencies : hookLatencies).push(performance.now() - begun);
        opening = false;
        if (answer.status !== 202) {
          failures.push(`hook ${answer.status} ${answer.body?.error?.code ?? ""}`);
          continue;
        }
        // (A hook that waited past its limit answers 202 too: the table is read for it then.)
        const ending = await studio.observer.until(answer.body.data.run_id, status);
        if (ending.status !== status) failures.push(`run ${ending.status} ${ending.error ?? ""}`.slice(0, 300));
        else runLatencies.push(ending.at - begun);
      }
    }),
  );
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(own);
  return {
    completed: runs - failures.length,
    failures: failures.length,
    firstError: failures[0] ?? null,
    wallMs,
    cpuMs: studioCpuMs(studio) - cpu,
    dbCpuMs: dbCpu === null ? null : databaseCpuMs(studio) - dbCpu,
    observerDbCpuMs: observerCpu === null ? null : observerCpuMs(studio) - observerCpu,
    redisCpuMs: redisCpu === null ? null : cpuMs(studio.redisPid) - redisCpu,
    benchCpuMs: (used.user + used.system) / 1000,
    hookLatencies,
    openingLatencies,
    runLatencies,
  };
}

// ---------------------------------------------------------------------------------------------
// The bench.

// Each figure of a set of rounds, summed over the rounds.
function totals(rounds) {
  const sum = (key) => rounds.reduce((acc, r) => acc + r[key], 0);
  const completed = sum("completed");
  return {
    completed,
    failures: sum("failures"),
    rate: completed / (sum("wallMs") / 1000),
    cpu: sum("cpuMs") / completed,
    // The database server's CPU per run, when it was read for every round (a local PostgreSQL).
    db: rounds.every((r) => r.dbCpuMs != null) ? sum("dbCpuMs") / completed : null,
    hooks: rounds.flatMap((r) => r.hookLatencies ?? []),
  };
}

/** A hook's 202 latencies as the summary prints them. */
const hookFigure = (latencies) =>
  latencies.length > 0
    ? `${fixed(percentile(latencies, 0.5))} / ${fixed(percentile(latencies, 0.99))} ms`
    : "not timed";

const roundText = (r) =>
  `${r.completed} ok in ${fixed(r.wallMs / 1000, 2)} s: ${fixed(r.completed / (r.wallMs / 1000))} runs/s, ` +
  `${fixed(r.cpuMs / r.completed, 2)} CPU ms/run` +
  (r.failures ? `, ${r.failures} FAILED (first: ${r.firstError})` : "");

async function main() {
  const { values: options } = benchArgs(USAGE, {
    runs: { type: "string", default: "600" },
    quick: { type: "boolean", default: false },
    "poll-ms": { type: "string", default: "2" },
    observe: { type: "string", default: "hook" },
    "pg-statements": { type: "boolean", default: false },
    warmup: { type: "string", default: "1000" },
    total: { type: "string", default: "10000" },
    waiting: { type: "string", default: "10000" },
    "resume-sample": { type: "string", default: "200" },
    postgres: { type: "boolean", default: false },
    "cpu-prof": { type: "string" },
    "log-level": { type: "string", default: "info" },
    graphs: { type: "string", default: GRAPHS.join(",") },
    redis: { type: "boolean", default: false },
    concurrency: { type: "string", default: "8" },
    "in-flight": { type: "string", default: "0" },
    "io-runs": { type: "string", default: "400" },
    rounds: { type: "string", default: "2" },
  });
  // Each numeric option has a default, so the fallback (0) is never used.
  const count = (name) => wholeNumber(USAGE, `--${name}`, options[name], 0, 0);
  POLL_MS = Math.max(1, count("poll-ms"));
  if (!["database", "hook"].includes(options.observe))
    usageError(USAGE, `--observe must be database or hook, not '${options.observe}'`);
  OBSERVE = options.observe;
  // The Redis mode's figures of record are its hooks' 202s at every number in flight.
  if (options.redis) {
    OBSERVE = "database";
    return redisMain(options, count);
  }
  if (options["pg-statements"] && !options.postgres && !process.env.DATABASE_URL)
    usageError(USAGE, "--pg-statements needs --postgres or DATABASE_URL");
  const runs = Math.max(1, count("runs"));
  const warmup = count("warmup");
  const total = count("total");
  const waiting = count("waiting");
  const resumeSample = Math.min(count("resume-sample"), waiting);
  const graphs = options.graphs.split(",").filter(Boolean);
  const unknown = graphs.filter((name) => !GRAPHS.includes(name));
  if (graphs.length === 0 || unknown.length > 0) usageError(USAGE, `--graphs takes some of ${GRAPHS.join(", ")}`);
  if (!existsSync(STUDIO_ENTRY)) throw new Error("the backend is not built: run `npm run build` first");
  if (!existsSync(SAVER_PACKAGE)) {
    console.error(
      "The bare baseline needs @langchain/langgraph-checkpoint-sqlite: run `npm install --prefix bench` first",
    );
    console.error("(better-sqlite3 builds from source when no prebuilt binary can be fetched; see bench/README.md).");
    process.exitCode = 1;
    return;
  }
  const benchStarted = performance.now();
  const loadAtStart = loadText();

  // The studio's database.
  let databaseUrl = null;
  // Where fresh databases for the studio and the bare PostgreSQL side come from.
  let adminUrl = null;
  let databaseText = "SQLite (embedded, the studio's default)";
  if (options.postgres) {
    const { startPostgresCluster } = await import("../backend/test/postgres-cluster.ts");
    const cluster = await startPostgresCluster({
      fsync: true,
      ...(options["pg-statements"] ? { settings: ["shared_preload_libraries=pg_stat_statements"] } : {}),
    });
    cleanups.push(() => cluster.stop());
    adminUrl = cluster.adminUrl;
    const fresh = await freshPostgres(adminUrl);
    databaseUrl = fresh.url;
    databaseText = `PostgreSQL (a throwaway cluster on loopback; fresh ${fresh.where})`;
  } else if (process.env.DATABASE_URL) {
    adminUrl = process.env.DATABASE_URL;
    const fresh = await freshPostgres(adminUrl);
    databaseUrl = fresh.url;
    databaseText = `PostgreSQL (DATABASE_URL's server; fresh ${fresh.where})`;
  }

  // Two bare processes: the saver as it comes, and the same with every commit synced like the studio's.
  const bareDir = tempDir("superstep-bare-");
  const bare = await startBare({ kind: "sqlite", file: join(bareDir, "bare.db") });
  const bareFull = await startBare({ kind: "sqlite", file: join(bareDir, "bare-full.db"), synchronous: "FULL" });
  const bareInfo = await bare.info();
  const bareFullInfo = await bareFull.info();
  // On PostgreSQL, a third: the official PostgreSQL saver on a fresh database of the same server.
  let barePg = null;
  if (adminUrl) {
    const fresh = await freshPostgres(adminUrl);
    barePg = await startBare({ kind: "postgres", url: fresh.url, schema: fresh.schema });
    barePg.where = fresh.where;
    barePg.url = fresh.url;
  }
  const barePgInfo = barePg ? await barePg.info() : null;

  const dataDir = tempDir("superstep-throughput-");
  const { env, limits } = studioEnvironment(options, dataDir, databaseUrl);

  console.log("Throughput: durable studio runs against bare LangGraph.js with its own SQLite checkpointer\n");
  console.log(
    `Node ${process.version}; ${cpus().length} cores (${cpus()[0]?.model ?? "?"}); load average ${loadAtStart}`,
  );
  console.log(`Studio database: ${databaseText}`);
  console.log(
    `Studio settings: ${Object.entries(limits)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")}`,
  );
  console.log(
    `                 STUDIO_LOG_LEVEL=${options["log-level"]} STUDIO_LOG_FORMAT=json (the bench drains the logs)`,
  );
  console.log(
    `Bare: @langchain/langgraph ${bareInfo.langgraph} + @langchain/langgraph-checkpoint-sqlite ${bareInfo.saver} on a file ` +
      `(journal_mode ${bareInfo.journal}, synchronous ${bareInfo.synchronous}); invoke() with durability "sync" in a child process.`,
  );
  const studioLanggraph = JSON.parse(
    readFileSync(fileURLToPath(new URL("../node_modules/@langchain/langgraph/package.json", import.meta.url)), "utf8"),
  ).version;
  if (studioLanggraph !== bareInfo.langgraph) {
    console.log(
      `      NOTE: the studio uses @langchain/langgraph ${studioLanggraph}: bring bench/package.json in step and reinstall.`,
    );
  }
  console.log(
    `      "bare-full": the same with synchronous ${bareFullInfo.synchronous} (FULL: every commit synced to disk before it returns; the studio syncs every write before acknowledging it);`,
  );
  console.log(
    "      the targets are against the saver as it comes (NORMAL in WAL mode: commits are synced only at checkpoints).",
  );
  if (barePgInfo) {
    console.log(
      `      "bare-pg": @langchain/langgraph-checkpoint-postgres ${barePgInfo.saver} on the studio's PostgreSQL server (fresh ${barePg.where}; ` +
        `a pool of ${barePgInfo.poolMax ?? "pg's default"} connections, as it comes): context, not a target.`,
    );
  }
  console.log(
    `Rounds: ${runs} runs each at ${IN_FLIGHT} in flight (closed loop), studio/bare/bare-full twice per graph; studio runs ` +
      `triggered with POST /api/hooks/workflows/:id/runs,\n        ` +
      (OBSERVE === "hook"
        ? `each waiting for its run (?wait=${HOOK_WAIT_SECONDS}) and answered with its end (--observe hook), as invoke() returns to bare's caller;\n` +
          `        then one more studio round per graph whose hooks answer 202 (timed) and whose runs are seen ending in the runs table;\n`
        : `completion read from the studio's runs table every ${POLL_MS} ms (no request to the studio);\n`) +
      "        hook latencies are taken while runs execute: each client's first hook, sent with all the others as a round opens,\n" +
      "        is counted apart (the opening burst).\n",
  );

  const studio = await startStudio(env, options["cpu-prof"]);
  // Our connections go first, so the studio's graceful stop does not wait for them.
  cleanups.push(() => agent.destroy());
  const idle = await readMemory(studio);
  console.log(`Studio started (pid ${studio.pid}); idle resident memory ${memoryPairText(idle)}`);

  if (databaseUrl) {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const { rows } = await client.query(
      "SELECT current_setting('server_version') v, current_setting('fsync') f, current_setting('synchronous_commit') s",
    );
    studio.databasePid = await postgresServerPid(client);
    await client.end();
    console.log(
      `PostgreSQL ${rows[0].v}: fsync ${rows[0].f}, synchronous_commit ${rows[0].s}; ` +
        (studio.databasePid
          ? `its server's CPU (pid ${studio.databasePid} and its backends, less the bench's own) is printed as "db CPU"`
          : "its server is not on this machine: its CPU is not counted"),
    );
    studio.observer = await startObserver("postgres", databaseUrl);
  } else {
    const file = join(dataDir, "superstep.db");
    const { DatabaseSync } = await import("node:sqlite");
    const probe = new DatabaseSync(file, { readOnly: true });
    const journal = probe.prepare("PRAGMA journal_mode").get().journal_mode;
    probe.close();
    // synchronous is a setting of each connection (this probe's would say nothing of the studio's).
    console.log(
      `Studio SQLite (node:sqlite): journal_mode ${journal}; synchronous NORMAL with the studio's own WAL sync before any write is acknowledged`,
    );
    studio.observer = await startObserver("sqlite", file);
  }
  cleanups.push(() => studio.observer.stop());

  // Owner, API key, workflows.
  const { token } = await must(
    studio.port,
    "POST",
    "/api/auth/setup",
    { body: { email: "bench@example.com", password: "bench-password" } },
    201,
  );
  studio.key = (await must(studio.port, "POST", "/api/api-keys", { body: { name: "bench" }, token }, 201)).key;
  const workflows = {};
  for (const name of [...GRAPHS, "waiting"]) {
    workflows[name] = (
      await must(studio.port, "POST", "/api/workflows", { body: studioDocument(name), token }, 201)
    ).id;
  }
  let studioRuns = 0;
  const studioRoundCounted = async (...args) => {
    const result = await studioRound(studio, ...args);
    studioRuns += result.completed + result.failures;
    return result;
  };

  // Warm-up (JIT, caches) on every side; then memory after it.
  const perGraph = Math.ceil(warmup / graphs.length);
  let warmed = 0;
  for (const name of graphs) {
    const share = Math.min(perGraph, warmup - warmed);
    warmed += share;
    if (share > 0) await studioRoundCounted(workflows[name], share, IN_FLIGHT);
    if (perGraph > 0) {
      await bare.round(name, perGraph, IN_FLIGHT);
      await bareFull.round(name, perGraph, IN_FLIGHT);
    }
  }
  const afterWarmup = await readMemory(studio);
  const afterWarmupRuns = studioRuns;
  console.log(`Warm-up: ${studioRuns} studio runs; resident memory ${memoryPairText(afterWarmup)}\n`);

  // PostgreSQL's own statistics cover the rounds below (--pg-statements).
  const statements = options["pg-statements"] ? await startStatements(adminUrl, databaseUrl) : null;
  if (statements?.unavailable) console.log(`--pg-statements: ${statements.unavailable}\n`);
  await statements?.reset?.();
  const runsAtReset = studioRuns;

  // The interleaved rounds.
  const sides = { studio: null, bare, "bare-full": bareFull };
  const results = {};
  /** With --observe hook, each graph's round whose 202s are timed. */
  const timedRounds = {};
  for (const name of graphs) {
    results[name] = { studio: [], bare: [], "bare-full": [] };
    for (let round = 1; round <= 2; round++) {
      for (const [side, runner] of Object.entries(sides)) {
        const r = runner
          ? await runner.round(name, runs, IN_FLIGHT)
          : await studioRoundCounted(workflows[name], runs, IN_FLIGHT);
        results[name][side].push(r);
        console.log(`  ${name} round ${round} ${side.padEnd(9)} ${roundText(r)}`);
      }
    }
    if (OBSERVE === "hook") {
      // The hook's 202 at 20 in flight, timed in a round of its own (runs seen ending in the table).
      const r = await studioRoundCounted(workflows[name], runs, IN_FLIGHT, "ok", "database");
      timedRounds[name] = r;
      console.log(`  ${name} 202s timed   ${roundText(r)}`);
    }
  }

  // Hook answers at 100 in flight while runs execute.
  const high = await studioRoundCounted(workflows.chain10, runs, IN_FLIGHT_HIGH, "ok", "database");
  console.log(`  chain10 at ${IN_FLIGHT_HIGH} in flight, studio ${roundText(high)}`);
  const statementRows = statements?.read ? await statements.read() : null;
  const statementRuns = studioRuns - runsAtReset;

  // Memory after many runs.
  if (!options.quick && studioRuns < total) {
    console.log(`\nTopping up to ${total} studio runs for the memory figure…`);
    let turn = 0;
    while (studioRuns < total) {
      const name = graphs[turn++ % graphs.length];
      const r = await studioRoundCounted(workflows[name], Math.min(runs, total - studioRuns), IN_FLIGHT);
      console.log(`  ${studioRuns} runs (${name}: ${roundText(r)})`);
    }
  }
  const afterRuns = await readMemory(studio);
  const afterRunsCount = studioRuns;
  console.log(`After ${studioRuns} studio runs: resident memory ${memoryPairText(afterRuns)}`);

  // Runs waiting at a Human node, then a sample of them resumed one by one.
  let waited = null;
  if (waiting > 0) {
    console.log(`\nLeaving ${waiting} runs waiting at a Human node…`);
    const before = afterRuns;
    const left = await studioRound(studio, workflows.waiting, waiting, IN_FLIGHT, "waiting");
    const after = await readMemory(studio);
    console.log(`  ${roundText(left).replace(" ok ", " waiting ")}`);
    console.log(`  resident memory ${memoryPairText(after)}`);
    const sample = [];
    while (sample.length < resumeSample) {
      const page = await must(
        studio.port,
        "GET",
        `/api/runs?workflow_id=${workflows.waiting}&status=waiting&limit=200&offset=${sample.length}`,
        { token: studio.key },
        200,
      );
      if (page.length === 0) break;
      sample.push(...page.map((run) => run.id));
    }
    const accept = [];
    const nextNode = [];
    const failures = [];
    for (const runId of sample.slice(0, resumeSample)) {
      // Event times are the server's wall clock, in milliseconds: compare with ours.
      const sentAt = performance.timeOrigin + performance.now();
      const begun = performance.now();
      const answer = await call(studio.port, "POST", `/api/runs/${runId}/resume`, {
        body: { input: { approved: true } },
        token: studio.key,
      });
      accept.push(performance.now() - begun);
      if (answer.status !== 200) {
        failures.push(`resume answered ${answer.status} ${answer.body?.error?.code ?? ""}`);
        continue;
      }
      const ending = await studio.observer.until(runId, "ok");
      if (ending.status !== "ok") {
        failures.push(`run ${ending.status} ${ending.error ?? ""}`.slice(0, 300));
        continue;
      }
      const events = await must(studio.port, "GET", `/api/runs/${runId}/events?after=0`, { token: studio.key }, 200);
      const started = events.find((e) => e.type === "node_started" && e.node_id === "after");
      if (started) nextNode.push(Date.parse(started.ts) - sentAt);
      else failures.push("no node_started event for the node after the Human node");
    }
    waited = { left, before, after, accept, nextNode, failures };
  }

  // LangGraph.js's own PostgreSQL saver, as context, after every figure of record: its database
  // does two to three times the studio's work per run, and flushing and vacuuming what it wrote
  // must not fall on the figures of record. Each of its rounds ends with a CHECKPOINT (outside the
  // figures), so the next studio round starts on a quiet server.
  const barePgResults = {};
  if (barePg) {
    const { default: pg } = await import("pg");
    const checkpointer = new pg.Client({ connectionString: barePg.url });
    await checkpointer.connect();
    cleanups.push(() => checkpointer.end());
    let checkpointRefused = null;
    const barePgRound = async (name, count) => {
      const dbCpu = databaseCpuMs(studio);
      const r = await barePg.round(name, count, IN_FLIGHT);
      if (dbCpu !== null) r.dbCpuMs = databaseCpuMs(studio) - dbCpu;
      await checkpointer.query("CHECKPOINT").catch((error) => {
        checkpointRefused ??= error.message;
      });
      return r;
    };
    console.log("\nAgainst LangGraph.js's official PostgreSQL saver (context), studio and bare-pg in turns:");
    if (perGraph > 0) for (const name of graphs) await barePgRound(name, perGraph);
    for (const name of graphs) {
      barePgResults[name] = { studio: [], "bare-pg": [] };
      for (let round = 1; round <= 2; round++) {
        const ours = await studioRoundCounted(workflows[name], runs, IN_FLIGHT);
        barePgResults[name].studio.push(ours);
        console.log(`  ${name} round ${round} ${"studio".padEnd(9)} ${roundText(ours)}`);
        const theirs = await barePgRound(name, runs);
        barePgResults[name]["bare-pg"].push(theirs);
        console.log(`  ${name} round ${round} ${"bare-pg".padEnd(9)} ${roundText(theirs)}`);
      }
    }
    if (checkpointRefused) console.log(`  (CHECKPOINT after its rounds refused: ${checkpointRefused})`);
  }

  // ---- Results -------------------------------------------------------------------------------
  console.log("\nPer round (CPU: the process and its children, per completed run; run: trigger to completion seen):\n");
  const rows = [];
  const roundRow = (name, round, side, r) => [
    name,
    round,
    side,
    r.completed,
    fixed(r.completed / (r.wallMs / 1000)),
    fixed(r.cpuMs / r.completed, 2),
    fixed(percentile(r.runLatencies, 0.5)),
    fixed(percentile(r.runLatencies, 0.99)),
    r.hookLatencies?.length ? fixed(percentile(r.hookLatencies, 0.5)) : "",
    r.hookLatencies?.length ? fixed(percentile(r.hookLatencies, 0.99)) : "",
    r.benchCpuMs === undefined ? "" : fixed(r.benchCpuMs / r.completed, 2),
    ...(studio.databasePid
      ? [
          r.dbCpuMs == null ? "" : fixed(r.dbCpuMs / r.completed, 2),
          r.observerDbCpuMs == null ? "" : fixed(r.observerDbCpuMs / r.completed, 2),
        ]
      : []),
    r.failures || "",
  ];
  for (const name of graphs) {
    for (let i = 0; i < 2; i++) {
      for (const side of Object.keys(sides)) rows.push(roundRow(name, i + 1, side, results[name][side][i]));
    }
    if (timedRounds[name]) rows.push(roundRow(name, "", "studio-202", timedRounds[name]));
  }
  table(
    [
      "graph",
      "round",
      "side",
      "runs ok",
      "runs/s",
      "CPU ms/run",
      "run p50 ms",
      "run p99 ms",
      "hook p50 ms",
      "hook p99 ms",
      "bench CPU ms/run",
      ...(studio.databasePid ? ["db CPU ms/run", "observer db CPU ms/run"] : []),
      "failed",
    ],
    rows,
  );
  console.log(
    `(bench CPU: this script's load generator and observer, which share the machine with the studio${studio.databasePid ? "; observer db CPU: the PostgreSQL backend answering the observer, left out of db CPU" : ""}` +
      (OBSERVE === "hook"
        ? ";\n studio: hooks that wait for their runs (?wait=); studio-202: a round of its own whose hooks answer 202, timed, and whose runs are seen ending in the table"
        : "") +
      ")",
  );
  if (statementRows) {
    console.log(
      `\nPostgreSQL's own time per statement (pg_stat_statements), executing in the server, over the ${statementRuns} studio runs of the rounds above\n` +
        "(the module's own small cost is in every figure of this run):\n",
    );
    printStatements(statementRows, statementRuns);
  }

  const summary = [];
  const add = (figure, value, target, met) => summary.push([figure, value, target, met === null ? "" : yes(met)]);
  for (const name of graphs) {
    const s = totals(results[name].studio);
    const b = totals(results[name].bare);
    const f = totals(results[name]["bare-full"]);
    const cpuRatio = s.cpu / b.cpu;
    const rateRatio = s.rate / b.rate;
    add(
      `${name}: CPU per run, studio / bare`,
      `${fixed(s.cpu, 2)} / ${fixed(b.cpu, 2)} ms = ${fixed(cpuRatio, 2)}×`,
      `≤ ${TARGET.cpuRatio}×`,
      cpuRatio <= TARGET.cpuRatio,
    );
    add(
      `${name}: CPU per run, stretch`,
      `${fixed(cpuRatio, 2)}×`,
      `≤ ${TARGET.cpuRatioStretch}×`,
      cpuRatio <= TARGET.cpuRatioStretch,
    );
    add(
      `${name}: completed runs/s, studio / bare`,
      `${fixed(s.rate)} / ${fixed(b.rate)} = ${fixed(rateRatio, 2)}×`,
      `≥ ${TARGET.rateRatio}×`,
      rateRatio >= TARGET.rateRatio,
    );
    if (s.db !== null) {
      add(
        `${name}: CPU per run, studio + PostgreSQL / bare`,
        `${fixed(s.cpu, 2)} + ${fixed(s.db, 2)} ms = ${fixed((s.cpu + s.db) / b.cpu, 2)}×`,
        "(context: bare's SQLite works in its process)",
        null,
      );
    }
    if (barePgResults[name]) {
      const ours = totals(barePgResults[name].studio);
      const theirs = totals(barePgResults[name]["bare-pg"]);
      // With the server's CPU on both sides when it runs on this machine.
      const withDb = ours.db !== null && theirs.db !== null;
      const ourCpu = ours.cpu + (withDb ? ours.db : 0);
      const theirCpu = theirs.cpu + (withDb ? theirs.db : 0);
      add(
        `${name}: against bare-pg (CPU${withDb ? " with PostgreSQL's" : ""}, runs/s)`,
        `${fixed(ourCpu, 2)} / ${fixed(theirCpu, 2)} ms = ${fixed(ourCpu / theirCpu, 2)}×, ` +
          `${fixed(ours.rate)} / ${fixed(theirs.rate)} = ${fixed(ours.rate / theirs.rate, 2)}×`,
        "(context: LangGraph.js on the same server)",
        null,
      );
    }
    add(
      `${name}: against bare-full (CPU, runs/s)`,
      `${fixed(s.cpu / f.cpu, 2)}× (${fixed(f.cpu, 2)} ms), ${fixed(s.rate / f.rate, 2)}× (${fixed(f.rate)}/s)`,
      "(context)",
      null,
    );
    add(
      `${name}: hook 202 p50 / p99, ${IN_FLIGHT} in flight`,
      hookFigure(s.hooks.length > 0 ? s.hooks : (timedRounds[name]?.hookLatencies ?? [])),
      "",
      null,
    );
  }
  const highP99 = percentile(high.hookLatencies, 0.99);
  add(
    `chain10: hook 202 p50 / p99, ${IN_FLIGHT_HIGH} in flight`,
    `${fixed(percentile(high.hookLatencies, 0.5))} / ${fixed(highP99)} ms`,
    `p99 ≤ ${TARGET.hookP99HighMs} ms`,
    highP99 <= TARGET.hookP99HighMs,
  );
  add(
    `chain10: the opening burst, ${IN_FLIGHT_HIGH} hooks at once`,
    `${fixed(percentile(high.openingLatencies, 0.5))} / ${fixed(percentile(high.openingLatencies, 0.99))} ms`,
    "(context)",
    null,
  );
  add(
    `chain10, ${IN_FLIGHT_HIGH} in flight: runs/s, CPU per run`,
    `${fixed(high.completed / (high.wallMs / 1000))}, ${fixed(high.cpuMs / high.completed, 2)} ms`,
    "",
    null,
  );
  // Memory: as it is (rss) and what is left after a full garbage collection (gc). The idle figure
  // is judged as it is; growth and what waiting runs add, on what the studio keeps (after a GC).
  const pair = (m) => `${fixed(mb(m.rss.own))} MB, gc ${fixed(mb(m.collected.own))} MB`;
  const signed = (ratio) => `${ratio >= 0 ? "+" : ""}${fixed(ratio * 100)} %`;
  add(
    "resident memory, idle after start (rss, after gc)",
    pair(idle),
    `rss ≤ ${TARGET.idleMb} MB`,
    mb(idle.rss.own) <= TARGET.idleMb,
  );
  add(`resident memory after ${afterWarmupRuns} runs`, pair(afterWarmup), "", null);
  const growth = afterRuns.collected.own / afterWarmup.collected.own - 1;
  const reached = afterRunsCount >= total;
  add(
    `resident memory after ${afterRunsCount} runs`,
    `${pair(afterRuns)} (gc ${signed(growth)}, rss ${signed(afterRuns.rss.own / afterWarmup.rss.own - 1)})`,
    reached ? `gc ≤ +${TARGET.growth * 100} % over after ${afterWarmupRuns}` : `(${total} not reached: --quick)`,
    reached ? growth <= TARGET.growth : null,
  );
  if (waited) {
    const added = mb(waited.after.collected.own - waited.before.collected.own);
    add(
      `${waited.left.completed} runs waiting at a Human node: memory added`,
      `gc ${fixed(added)} MB (${fixed(mb(waited.before.collected.own))} → ${fixed(mb(waited.after.collected.own))}); ` +
        `rss ${fixed(mb(waited.before.rss.own))} → ${fixed(mb(waited.after.rss.own))} MB`,
      `gc ≤ ${TARGET.waitingMb} MB`,
      added <= TARGET.waitingMb,
    );
    add(
      "runs left waiting: runs/s, CPU per run",
      `${fixed(waited.left.completed / (waited.left.wallMs / 1000))}, ${fixed(waited.left.cpuMs / waited.left.completed, 2)} ms`,
      "",
      null,
    );
    const accept95 = percentile(waited.accept, 0.95);
    const next95 = percentile(waited.nextNode, 0.95);
    add(
      `resume, ${waited.accept.length} one by one: accepted p50 / p95`,
      `${fixed(percentile(waited.accept, 0.5))} / ${fixed(accept95)} ms`,
      `p95 ≤ ${TARGET.resumeAcceptP95Ms} ms`,
      accept95 <= TARGET.resumeAcceptP95Ms,
    );
    add(
      "resume: next node started p50 / p95",
      `${fixed(percentile(waited.nextNode, 0.5))} / ${fixed(next95)} ms`,
      `p95 ≤ ${TARGET.resumeNextNodeP95Ms} ms`,
      next95 <= TARGET.resumeNextNodeP95Ms,
    );
  }
  console.log("\nSummary:\n");
  table(["figure", "value", "target", ""], summary);

  const failed =
    Object.values(results).reduce((n, r) => n + Object.values(r).reduce((m, list) => m + totals(list).failures, 0), 0) +
    high.failures +
    Object.values(timedRounds).reduce((n, r) => n + r.failures, 0) +
    (waited ? waited.left.failures + waited.failures.length : 0);
  if (failed > 0) {
    console.log(`\n${failed} run(s) or resume(s) FAILED: the figures count completed runs only.`);
    if (waited?.failures.length) console.log(`First resume failure: ${waited.failures[0]}`);
  }
  console.log(
    `\nEnd: ${studioRuns + (waited?.left.completed ?? 0)} studio runs; resident memory ${memoryText(memory(studio.pid))}; ` +
      `load average at start ${loadAtStart}, at end ${loadText()}; ${fixed((performance.now() - benchStarted) / 60_000)} minutes.`,
  );
  if (options["cpu-prof"]) console.log(`The studio's CPU profile goes to ${options["cpu-prof"]} when it stops.`);
}

// ---------------------------------------------------------------------------------------------
// The Redis mode (--redis): PostgreSQL + Redis, one API process and 1, then 2, `superstep worker`
// processes, against the embedded mode on the same PostgreSQL server.

const REDIS_TARGET = { ioScaling: 1.8, queueCostMs: 2, hookP99Ms: 50, memoryMb: 50 };
// How long the loopback server the HTTP tool nodes call takes to answer.
const SLOW_ANSWER_MS = 100;

/** Three HTTP tool nodes in a row, each calling the loopback server (which answers after 100 ms). */
function httpDocument(baseUrl) {
  const ids = ["h1", "h2", "h3"];
  return {
    name: "bench http3",
    state: ids.map((id) => ({ name: `${id}_reply`, type: "any" })),
    nodes: ids.map((id) => ({
      id,
      type: "tool",
      position: at,
      data: { kind: "http", method: "POST", url: `${baseUrl}/${id}`, output_field: `${id}_reply`, timeout_ms: 60_000 },
    })),
    edges: ids
      .map((id, i) => ({ id: `e${i}`, source: i === 0 ? "start" : ids[i - 1], target: id }))
      .concat([{ id: "end", source: "h3", target: "end" }]),
  };
}

/** A loopback HTTP server that answers every request after `delayMs`: the I/O the HTTP tools wait on. */
async function startSlowServer(delayMs) {
  const { createServer } = await import("node:http");
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () =>
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"ok":true}');
      }, delayMs),
    );
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${server.address().port}`;
}

/** The pid of the redis-server this script started (its child), for its CPU. */
function redisServerPid() {
  for (const pid of processTree(process.pid).slice(1)) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "redis-server") return pid;
    } catch {}
  }
  return null;
}

/** Stops one studio process now (SIGTERM, then SIGKILL after 60 s) and waits for its exit. */
async function stopProcess(proc) {
  const { child } = proc;
  if (child.exitCode !== null || child.signalCode !== null) return;
  proc.stopping();
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  await proc.exited;
  clearTimeout(timer);
}

async function setUpWorkflows(port, slowUrl) {
  const { token } = await must(
    port,
    "POST",
    "/api/auth/setup",
    { body: { email: "bench@example.com", password: "bench-password" } },
    201,
  );
  const key = (await must(port, "POST", "/api/api-keys", { body: { name: "bench" }, token }, 201)).key;
  const documents = {
    chain10: studioDocument("chain10"),
    http3: httpDocument(slowUrl),
    waiting: studioDocument("waiting"),
  };
  const workflows = {};
  for (const [name, document] of Object.entries(documents)) {
    workflows[name] = (await must(port, "POST", "/api/workflows", { body: document, token }, 201)).id;
  }
  return { key, workflows };
}

/** Rounds of one kind as one: counts, times and CPU added, latencies pooled. */
function mergeRounds(list) {
  const sum = (key) => (list.some((r) => r[key] == null) ? null : list.reduce((acc, r) => acc + r[key], 0));
  return {
    completed: sum("completed"),
    failures: sum("failures"),
    firstError: list.find((r) => r.firstError)?.firstError ?? null,
    wallMs: sum("wallMs"),
    cpuMs: sum("cpuMs"),
    dbCpuMs: sum("dbCpuMs"),
    observerDbCpuMs: sum("observerDbCpuMs"),
    redisCpuMs: sum("redisCpuMs"),
    benchCpuMs: sum("benchCpuMs"),
    hookLatencies: list.flatMap((r) => r.hookLatencies),
    openingLatencies: list.flatMap((r) => r.openingLatencies),
    runLatencies: list.flatMap((r) => r.runLatencies),
  };
}

async function redisMain(options, count) {
  const quick = options.quick;
  const concurrency = Math.max(1, count("concurrency"));
  const inFlight = Math.max(1, count("in-flight") || 4 * concurrency);
  const runs = Math.max(1, quick ? Math.min(count("runs"), 200) : count("runs"));
  const ioRuns = Math.max(1, quick ? Math.min(count("io-runs"), 150) : count("io-runs"));
  const warmup = quick ? Math.min(count("warmup"), 100) : Math.min(count("warmup"), 300);
  const waiting = quick ? Math.min(count("waiting"), 2000) : count("waiting");
  const rounds = quick ? 1 : Math.max(1, count("rounds"));
  if (!existsSync(STUDIO_ENTRY)) throw new Error("the backend is not built: run `npm run build` first");
  const benchStarted = performance.now();
  const loadAtStart = loadText();

  let adminUrl;
  let databaseText;
  if (process.env.DATABASE_URL) {
    adminUrl = process.env.DATABASE_URL;
    databaseText = "DATABASE_URL's server";
  } else {
    const { startPostgresCluster } = await import("../backend/test/postgres-cluster.ts");
    const cluster = await startPostgresCluster({ fsync: true });
    cleanups.push(() => cluster.stop());
    adminUrl = cluster.adminUrl;
    databaseText = "a throwaway PostgreSQL cluster on loopback";
  }
  const { startRedisServer } = await import("../backend/test/redis-server.ts");
  const redis = await startRedisServer();
  cleanups.push(() => redis.stop());
  const redisPid = redisServerPid();
  const slowUrl = await startSlowServer(SLOW_ANSWER_MS);

  const secrets = {
    JWT_SECRET: randomBytes(32).toString("hex"),
    STUDIO_ENCRYPTION_KEY: randomBytes(32).toString("hex"),
  };
  const limits = {
    STUDIO_WORKER_CONCURRENCY: String(concurrency),
    STUDIO_USER_MAX_RUNS: String(concurrency),
    STUDIO_USER_MAX_QUEUED: "1000000",
    STUDIO_USER_RUN_RATE: "100000",
    STUDIO_HOOK_RATE_LIMIT: "1000000",
    STUDIO_EGRESS_ALLOW: "127.0.0.1",
  };
  const environment = async (redisUrl) => {
    const fresh = await freshPostgres(adminUrl);
    const dataDir = tempDir("superstep-throughput-redis-");
    const { env } = studioEnvironment(options, dataDir, fresh.url);
    return { env: { ...env, ...limits, ...secrets, ...(redisUrl ? { REDIS_URL: redisUrl } : {}) }, url: fresh.url };
  };
  /** A deployment: the API process (and workers), its observer and the PostgreSQL server's pid. */
  const deploy = async (api, url, workers = []) => {
    const deployment = { pid: api.pid, port: api.port, api, workers, redisPid };
    deployment.pids = () => [api.pid, ...workers.map((w) => w.pid)];
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    deployment.databasePid = await postgresServerPid(client);
    await client.end();
    deployment.observer = await startObserver("postgres", url);
    cleanups.push(() => deployment.observer.stop());
    Object.assign(deployment, await setUpWorkflows(api.port, slowUrl));
    return deployment;
  };
  const round = async (deployment, label, name, n) => {
    const r = await studioRound(deployment, deployment.workflows[name], n, inFlight);
    console.log(`  ${label.padEnd(26)} ${name.padEnd(8)} ${roundText(r)}`);
    return r;
  };

  console.log(
    "Throughput, Redis mode: an API process and 1, then 2, superstep worker processes on PostgreSQL + Redis\n",
  );
  console.log(
    `Node ${process.version}; ${cpus().length} cores (${cpus()[0]?.model ?? "?"}); load average ${loadAtStart}`,
  );
  console.log(`Database: ${databaseText} (a fresh database per deployment); Redis: redis-server on ${redis.url}`);
  console.log(
    `Studio settings: ${Object.entries(limits)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")}`,
  );
  console.log(
    `Workflows: chain10 (10 Condition nodes in a row, CPU-bound), http3 (3 HTTP tool nodes in a row to a loopback server answering after ${SLOW_ANSWER_MS} ms, I/O-bound).`,
  );
  console.log(
    `Rounds: ${rounds} per deployment and graph, ${runs} chain10 runs and ${ioRuns} http3 runs each, ${inFlight} in flight (closed loop), triggered with POST /api/hooks/workflows/:id/runs; ` +
      `completion read from the runs table every ${POLL_MS} ms; each client's first hook of a round is counted apart (the opening burst).\n`,
  );

  // 1. The embedded mode and the Redis mode with one worker, side by side on the same PostgreSQL
  //    server (a database each), their rounds interleaved so that both see the same machine load.
  const embeddedEnv = await environment(null);
  const embeddedProcess = await startStudio(embeddedEnv.env, options["cpu-prof"]);
  const embedded = await deploy(embeddedProcess, embeddedEnv.url);
  const redisEnv = await environment(redis.url);
  const api = await startStudio(redisEnv.env, options["cpu-prof"]);
  const workers = [await startStudio(redisEnv.env, options["cpu-prof"], "worker")];
  const deployment = await deploy(api, redisEnv.url, workers);
  const warm = async (target, share = 1) => {
    await studioRound(target, target.workflows.chain10, Math.ceil(warmup * share), inFlight);
    await studioRound(target, target.workflows.http3, Math.ceil((warmup * share) / 4), inFlight);
  };
  await warm(embedded);
  await warm(deployment);
  console.log(
    "Embedded mode (one superstep start process, no REDIS_URL) and Redis mode (superstep start with REDIS_URL, runs executed by superstep worker processes), interleaved:",
  );
  const embeddedChains = [];
  const embeddedHttps = [];
  const oneChains = [];
  const oneHttps = [];
  for (let i = 1; i <= rounds; i++) {
    embeddedChains.push(await round(embedded, `embedded, round ${i}`, "chain10", runs));
    oneChains.push(await round(deployment, `API + 1 worker, round ${i}`, "chain10", runs));
    embeddedHttps.push(await round(embedded, `embedded, round ${i}`, "http3", ioRuns));
    oneHttps.push(await round(deployment, `API + 1 worker, round ${i}`, "http3", ioRuns));
  }
  await embedded.observer.stop();
  await stopProcess(embeddedProcess);

  // 2. A second worker.
  workers.push(await startStudio(redisEnv.env, options["cpu-prof"], "worker"));
  await warm(deployment, 0.5);
  const twoChains = [];
  const twoHttps = [];
  for (let i = 1; i <= rounds; i++) {
    twoChains.push(await round(deployment, `API + 2 workers, round ${i}`, "chain10", runs));
    twoHttps.push(await round(deployment, `API + 2 workers, round ${i}`, "http3", ioRuns));
  }
  const [embeddedChain, embeddedHttp, oneChain, oneHttp, twoChain, twoHttp] = [
    embeddedChains,
    embeddedHttps,
    oneChains,
    oneHttps,
    twoChains,
    twoHttps,
  ].map(mergeRounds);

  // 3. Runs waiting at a Human node live in the database: the processes' memory before and after.
  let waited = null;
  if (waiting > 0) {
    console.log(`\nLeaving ${waiting} runs waiting at a Human node (API + 2 workers)…`);
    const processes = [
      ["API", api],
      ["worker 1", workers[0]],
      ["worker 2", workers[1]],
    ];
    const before = [];
    for (const [, proc] of processes) before.push(await readMemory(proc));
    const left = await studioRound(deployment, deployment.workflows.waiting, waiting, inFlight, "waiting");
    console.log(`  ${roundText(left).replace(" ok ", " waiting ")}`);
    const after = [];
    for (const [, proc] of processes) after.push(await readMemory(proc));
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: redisEnv.url });
    await client.connect();
    const stored = Number((await client.query("SELECT count(*) AS n FROM runs WHERE status = 'waiting'")).rows[0].n);
    await client.end();
    waited = { left, processes: processes.map(([name], i) => ({ name, before: before[i], after: after[i] })), stored };
  }

  // ---- Results -------------------------------------------------------------------------------
  const rowOf = (label, name, r) => [
    label,
    name,
    r.completed,
    fixed(r.completed / (r.wallMs / 1000)),
    fixed(r.cpuMs / r.completed, 2),
    r.dbCpuMs == null ? "" : fixed(r.dbCpuMs / r.completed, 2),
    r.redisCpuMs == null ? "" : fixed(r.redisCpuMs / r.completed, 2),
    fixed(percentile(r.runLatencies, 0.5)),
    fixed(percentile(r.runLatencies, 0.99)),
    fixed(percentile(r.hookLatencies, 0.5)),
    fixed(percentile(r.hookLatencies, 0.99)),
    fixed(r.benchCpuMs / r.completed, 2),
    r.failures || "",
  ];
  console.log(
    `\nPer deployment and graph, ${rounds} round(s) together (studio CPU: the API process and every worker, with their children, per completed run):\n`,
  );
  table(
    [
      "deployment",
      "graph",
      "runs ok",
      "runs/s",
      "studio CPU ms/run",
      "db CPU ms/run",
      "Redis CPU ms/run",
      "run p50 ms",
      "run p99 ms",
      "hook p50 ms",
      "hook p99 ms",
      "bench CPU ms/run",
      "failed",
    ],
    [
      rowOf("embedded", "chain10", embeddedChain),
      rowOf("embedded", "http3", embeddedHttp),
      rowOf("API + 1 worker", "chain10", oneChain),
      rowOf("API + 1 worker", "http3", oneHttp),
      rowOf("API + 2 workers", "chain10", twoChain),
      rowOf("API + 2 workers", "http3", twoHttp),
    ],
  );

  const summary = [];
  const add = (figure, value, target, met) => summary.push([figure, value, target, met === null ? "" : yes(met)]);
  const rate = (r) => r.completed / (r.wallMs / 1000);
  const cpuPerRun = (r) => r.cpuMs / r.completed;
  for (const [name, kind, one, two] of [
    ["chain10", "CPU-bound", oneChain, twoChain],
    ["http3", "I/O-bound", oneHttp, twoHttp],
  ]) {
    for (const [workersText, r] of [
      ["1 worker", one],
      ["2 workers", two],
    ]) {
      add(`${name} (${kind}), ${workersText}: completed runs/s`, fixed(rate(r)), "", null);
      const p99 = percentile(r.hookLatencies, 0.99);
      add(
        `${name}, ${workersText}: hook 202 p50 / p99, ${inFlight} in flight`,
        `${fixed(percentile(r.hookLatencies, 0.5))} / ${fixed(p99)} ms`,
        `p99 ≤ ${REDIS_TARGET.hookP99Ms} ms`,
        p99 <= REDIS_TARGET.hookP99Ms,
      );
      add(
        `${name}, ${workersText}: the opening bursts, ${inFlight} hooks at once`,
        `${fixed(percentile(r.openingLatencies, 0.5))} / ${fixed(percentile(r.openingLatencies, 0.99))} ms`,
        "(context)",
        null,
      );
    }
  }
  const ioRatio = rate(twoHttp) / rate(oneHttp);
  add(
    `http3: runs/s, 2 workers / 1 worker (${concurrency} runs at once each)`,
    `${fixed(rate(twoHttp))} / ${fixed(rate(oneHttp))} = ${fixed(ioRatio, 2)}×`,
    `≥ ${REDIS_TARGET.ioScaling}×`,
    ioRatio >= REDIS_TARGET.ioScaling,
  );
  add(
    "chain10: runs/s, 2 workers / 1 worker",
    `${fixed(rate(twoChain))} / ${fixed(rate(oneChain))} = ${fixed(rate(twoChain) / rate(oneChain), 2)}×`,
    `(context: CPU-bound on ${cpus().length} cores)`,
    null,
  );
  const queueCost = cpuPerRun(oneChain) - cpuPerRun(embeddedChain);
  add(
    "queue's added cost per run, chain10: studio CPU ms/run, API + 1 worker − embedded",
    `${fixed(cpuPerRun(oneChain), 2)} − ${fixed(cpuPerRun(embeddedChain), 2)} = ${fixed(queueCost, 2)} ms`,
    `≤ ${REDIS_TARGET.queueCostMs} ms`,
    queueCost <= REDIS_TARGET.queueCostMs,
  );
  add(
    "same, http3",
    `${fixed(cpuPerRun(oneHttp), 2)} − ${fixed(cpuPerRun(embeddedHttp), 2)} = ${fixed(cpuPerRun(oneHttp) - cpuPerRun(embeddedHttp), 2)} ms`,
    "(context)",
    null,
  );
  add(
    "same, chain10, with the Redis server's CPU added",
    `${fixed(queueCost + oneChain.redisCpuMs / oneChain.completed, 2)} ms (Redis ${fixed(oneChain.redisCpuMs / oneChain.completed, 2)} ms/run)`,
    "(context)",
    null,
  );
  if (waited) {
    add(
      `runs waiting at a Human node, in the database`,
      `${waited.left.completed} left waiting; ${waited.stored} rows with status waiting`,
      "",
      null,
    );
    for (const { name, before, after } of waited.processes) {
      const added = mb(after.collected.own - before.collected.own);
      add(
        `${name}: memory before → after the waiting runs`,
        `gc ${fixed(mb(before.collected.own))} → ${fixed(mb(after.collected.own))} MB (${added >= 0 ? "+" : ""}${fixed(added)}); ` +
          `rss ${fixed(mb(before.rss.own))} → ${fixed(mb(after.rss.own))} MB`,
        `gc growth ≤ ${REDIS_TARGET.memoryMb} MB`,
        added <= REDIS_TARGET.memoryMb,
      );
    }
  }
  console.log("\nSummary:\n");
  table(["figure", "value", "target", ""], summary);
  const failed =
    [embeddedChain, embeddedHttp, oneChain, oneHttp, twoChain, twoHttp].reduce((n, r) => n + r.failures, 0) +
    (waited ? waited.left.failures : 0);
  if (failed > 0) console.log(`\n${failed} run(s) FAILED: the figures count completed runs only.`);
  console.log(
    "\nThe queue's added cost is judged on CPU (studio CPU ms per run, all studio processes with their children, " +
      "Redis mode with one worker less the embedded mode, same graph, same PostgreSQL server), not on latency: at " +
      `${inFlight} in flight a run's latency is mostly its wait for a free slot.`,
  );
  console.log(
    `\nEnd: load average at start ${loadAtStart}, at end ${loadText()}; ${fixed((performance.now() - benchStarted) / 60_000)} minutes. ` +
      "Wall-clock figures (runs/s, latencies) move with whatever else the machine does.",
  );
}

const bareIndex = process.argv.indexOf("--bare-child");
if (bareIndex >= 0) {
  await bareChild(JSON.parse(process.argv[bareIndex + 1]));
} else {
  onSignals();
  try {
    await main();
  } catch (error) {
    // After an interrupt, requests cut short are expected: no trace for them.
    if (!interrupted) console.error(error);
    process.exitCode = 1;
  } finally {
    await cleanup();
  }
}
