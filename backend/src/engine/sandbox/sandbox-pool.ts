// Keeps sandbox children ready ahead of need, so that a call does not wait for a process to start
// and an interpreter to load. Nothing is started before the first call of a language; once that
// call has its child, `warm` children per language wait ready (STUDIO_CODE_WARM), and a ready child
// left idle for IDLE_MS is stopped and not replaced until the next call.
//
// - A JavaScript child serves many calls, each in a fresh QuickJS instance (see quickjs-runner.mjs);
//   it goes back to the pool only after a call that ended cleanly (its own answer, not a timeout,
//   a memory limit, a cancellation or a protocol error), and at most MAX_CALLS_PER_CHILD times.
// - A Python child serves the calls of one scope (a run's turn, within one workflow: see
//   `acquireChild`) and is then killed: Python reaches the child's JavaScript realm through
//   Pyodide's FFI, so neither the interpreter nor the realm ever serves another scope. A call
//   without a scope has its child to itself. What makes a child cheap is a Pyodide memory snapshot:
//   the first Python child of this process loads Pyodide from its package (seconds), imports the
//   usual modules and sends a snapshot of its memory, taken before any user code ran; every later
//   Python child starts from that snapshot.
//
// A child takes longer to start than calls that come one after another take to run (a Python child
// a few hundred milliseconds of CPU), so the pool grows with what it is asked: each call that
// finds no child ready (Python: any but the pool's first; JavaScript: while other calls hold the
// children) keeps one more ready from then on, up to `most` (STUDIO_CODE_WARM_MAX). A workflow
// with three Python steps waits for children on its first run or two, and then finds them ready.
// GROWN_FOR_MS after the last call that had to wait, the pool is back to `warm`.
//
// With a snapshot directory (the server's STUDIO_DATA_DIR/cache), the snapshot is also stored there
// (snapshot-store.ts), and the first Python child after a restart starts from the stored one; a
// stored snapshot no child can start from is removed, and the next child takes a new one.
//
// A snapshot taken by this process is kept as an open file whose name is removed at once: children
// get its descriptor, and it is gone when the pool stops or this process ends, however it ends (a
// stored one is the store's file, opened once and checked against its hash). Children of a stopped
// pool, and every child when this process exits, are killed; a child whose parent died without
// that sees its stdin close and exits.

import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { pythonSnapshotKey, type RuntimeLanguage } from "./child-command.js";
import { SandboxProcess, SandboxStartError } from "./sandbox-process.js";
import { openStoredSnapshot, storeSnapshot } from "./snapshot-store.js";

/** Ready children per language after its first use, unless the caller says otherwise. */
export const DEFAULT_WARM_CHILDREN = 1;
const IDLE_MS = 10 * 60_000;
/** What the pool may grow to unless the caller says otherwise. */
export const DEFAULT_MOST_WARM_CHILDREN = 4;
// Shorter than IDLE_MS: the children a burst asked for go first, and the pool's own ones later.
const GROWN_FOR_MS = 5 * 60_000;
const MAX_CALLS_PER_CHILD = 500;
// A scope's idle Python child is killed this long after its last call, in case its scope is never
// ended (endSandboxScopes is the usual end: a run's turn is over).
const SCOPE_IDLE_MS = 60_000;
// A child that is not ready by then is stuck: it is killed, and the call waiting for it (if it has
// not given up already) learns why.
const LOAD_TIMEOUT_MS = 120_000;
// Children loading at once per pool: more would only share the same cores.
const MAX_STARTING = Math.max(2, availableParallelism());

type Outcome = { ok: true; child: SandboxProcess } | { ok: false; error: Error };

interface Waiter {
  settle: (outcome: Outcome) => void;
  /** The waiting call's scope: a child another call of it leaves is handed over at once. */
  scope?: string;
}

interface Pool {
  language: RuntimeLanguage;
  memoryMb: number;
  /** Children kept ready at least (after the first call), and at most after growing. */
  warm: number;
  most: number;
  /** Children kept ready beyond `warm`, one for each call that found none ready. */
  grown: number;
  /** Ends the growth GROWN_FOR_MS after the last call that had to wait. */
  shrinkTimer: NodeJS.Timeout | null;
  /** Calls handed a child so far: the first call of a pool finds none ready and grows nothing. */
  served: number;
  ready: SandboxProcess[];
  starting: number;
  /** Children running a call. */
  busy: number;
  waiters: Waiter[];
  idleTimers: Map<SandboxProcess, NodeJS.Timeout>;
  /** Called whenever a child joins the ready list (sandboxPoolReady). */
  readyWatchers: (() => void)[];
  /**
   * False after a child failed to start, until one starts: children are then started only for
   * waiting calls, never ahead, so a broken runtime does not start children in a loop.
   */
  healthy: boolean;
}

export interface SandboxPoolStats {
  /** Children started so far, per language, and how many of the Python ones loaded from the snapshot. */
  started: Record<RuntimeLanguage, number>;
  startedFromSnapshot: number;
  /** Process ids of the children ready for a call now, per language. */
  ready: Record<RuntimeLanguage, number[]>;
  /** Process ids of every child alive now (ready, starting or running a call), per language. */
  pids: Record<RuntimeLanguage, number[]>;
  /** Calls waiting for a child now, per language. */
  waiting: Record<RuntimeLanguage, number>;
  /** Process ids of the Python children waiting for the next call of their scope, by scope. */
  scoped: Record<string, number[]>;
  /**
   * The open Pyodide snapshot file Python children start from, once there is one: unlinked when
   * this process took it, the store's own file when it was read from there.
   */
  snapshotFd: number | null;
  /** Where that snapshot came from: taken by this process's first Python child, or read from the store. */
  snapshotFrom: "made" | "store" | null;
}

const pools = new Map<string, Pool>();
/**
 * Python children that ended a call cleanly and wait for the next call of their scope, oldest
 * first. At most a pool's `most` are kept: each holds an interpreter (~170 MB).
 */
const kept = new Map<SandboxProcess, { scope: string; timer: NodeJS.Timeout }>();
const poolOf = new WeakMap<SandboxProcess, Pool>();
const live = new Set<SandboxProcess>();
const started: Record<RuntimeLanguage, number> = { javascript: 0, python: 0 };
let startedFromSnapshot = 0;
let exitHookInstalled = false;

interface ReadySnapshot {
  state: "ready";
  fd: number;
  from: "made" | "store";
  /** The stored file (from "store"), whose descriptor `fd` is. */
  path?: string;
  /** A child has started from it: it is known to load. */
  proven: boolean;
}
type SnapshotState =
  | { state: "none" }
  | { state: "making"; done: Promise<void> }
  | ReadySnapshot
  | { state: "unavailable" };
let snapshot: SnapshotState = { state: "none" };
/** Where snapshots are stored between starts (PoolSize.snapshotDir); null: nowhere. */
let storeDir: string | null = null;
/** A stored snapshot failed to load in this process: the store is not read again until a stop. */
let storeRefused = false;
/** Moves at every stop: a snapshot read from the store for an earlier pool is not kept. */
let generation = 0;
/** Snapshots being written to the store (a stop waits for them: no file is left half written). */
const storing = new Set<Promise<void>>();
/** The snapshot each Python child started from. */
const snapshotOf = new WeakMap<SandboxProcess, ReadySnapshot>();

/** How many children a pool keeps ready: `warm`, growing up to `most` (0 for `warm` 0: no pool). */
export interface PoolSize {
  warm: number;
  most: number;
  /** Where the Python snapshot is stored between starts of this process (absent: nowhere). */
  snapshotDir?: string;
}

export interface Lease {
  /** The child to run the call in, or why none could be had. */
  outcome: Promise<Outcome>;
  /** Gives up waiting (cancellation, startup timeout); a child that comes later goes to the pool. */
  cancel: () => void;
}

/**
 * A ready child for one call: for a Python call with a `scope`, a child an earlier call of that
 * scope left (see `releaseChild`); else one waiting in the pool, else the next one that becomes
 * ready. A scope names what may share an interpreter: the calls of one run's turn within one
 * workflow (the engine's `sandbox-scope.ts`), never two runs.
 */
export function acquireChild(
  language: RuntimeLanguage,
  memoryMb: number,
  size: PoolSize = { warm: DEFAULT_WARM_CHILDREN, most: DEFAULT_MOST_WARM_CHILDREN },
  scope?: string,
): Lease {
  installExitHook();
  if (language === "python") storeDir = size.snapshotDir ?? null;
  const pool = poolFor(language, memoryMb, size);
  // Only Python children are kept for a scope: a JavaScript one serves any call already.
  const shared = language === "python" ? scope : undefined;
  const keptChild = shared === undefined ? undefined : takeKept(shared, pool);
  if (keptChild) {
    pool.busy += 1;
    return { outcome: Promise.resolve({ ok: true, child: keptChild }), cancel: () => {} };
  }
  const idle = takeReady(pool);
  pool.served += 1;
  if (idle) {
    pool.busy += 1;
    // Its replacement starts when the call ends (releaseChild): loading an interpreter now would
    // take the CPU this call needs. A call that comes meanwhile starts one for itself.
    return { outcome: Promise.resolve({ ok: true, child: idle }), cancel: () => {} };
  }
  let settle: (outcome: Outcome) => void = () => {};
  const outcome = new Promise<Outcome>((resolve) => {
    settle = resolve;
  });
  const waiter: Waiter = shared === undefined ? { settle } : { settle, scope: shared };
  pool.waiters.push(waiter);
  // Found none ready because calls came faster than children start: a Python child serves one
  // call, and a JavaScript one is busy with another call (not merely replaced after a timeout).
  if (language === "python" ? pool.served > 1 : pool.busy > 0) grow(pool);
  replenish(pool);
  return {
    outcome,
    cancel: () => {
      const at = pool.waiters.indexOf(waiter);
      if (at !== -1) pool.waiters.splice(at, 1);
    },
  };
}

/**
 * How a call leaves its child: `unused` (the call never sent its request: cancelled while the
 * child was on its way), `clean` (the child answered the call itself) or `spent` (a timeout, a
 * kill, a protocol error, anything else).
 */
export type ChildRelease = "unused" | "clean" | "spent";

/**
 * Gives a child back after a call. A child that never got the request goes back to the pool; a
 * JavaScript child whose call ended cleanly may serve again; a Python child whose call ended
 * cleanly waits for the next call of its `scope`, if the call had one; any other child is killed
 * and the pool refilled.
 */
export function releaseChild(child: SandboxProcess, how: ChildRelease, scope?: string): void {
  child.endCall();
  const pool = poolOf.get(child);
  if (pool) pool.busy = Math.max(0, pool.busy - 1);
  // A Python child that ran a call serves its scope's calls or none: never the pool's.
  const served = child.language === "python" && child.calls > 0;
  if (
    scope !== undefined &&
    (how === "clean" || (how === "unused" && served)) &&
    child.language === "python" &&
    child.idle &&
    child.calls < MAX_CALLS_PER_CHILD &&
    pool !== undefined &&
    isCurrent(pool) &&
    pool.most > 0
  ) {
    // A call of the same scope waiting for a child (calls at once: a For each) takes this one.
    const waiting = pool.waiters.findIndex((waiter) => waiter.scope === scope);
    if (waiting !== -1) {
      const [waiter] = pool.waiters.splice(waiting, 1);
      pool.busy += 1;
      waiter?.settle({ ok: true, child });
      return;
    }
    keepForScope(scope, child, pool.most);
    // The call used up a ready child; its replacement starts now, as for a killed one.
    setImmediate(() => replenish(pool));
    return;
  }
  const reusable =
    (how === "unused" && !served) ||
    (how === "clean" && child.language === "javascript" && child.calls < MAX_CALLS_PER_CHILD);
  const keep =
    reusable &&
    child.idle &&
    pool !== undefined &&
    isCurrent(pool) &&
    (pool.waiters.length > 0 || pool.ready.length < readyWanted(pool));
  if (keep && pool) offer(pool, child);
  else child.kill();
  // Starting a process blocks this thread for a moment: after the caller has its result.
  if (pool) setImmediate(() => replenish(pool));
}

/**
 * Ends every scope whose name starts with `prefix` (a run's turn is over): the children they kept
 * are killed, and a later call of such a scope gets a child of its own.
 */
export function endSandboxScopes(prefix: string): void {
  for (const [child, { scope }] of kept) if (scope.startsWith(prefix)) letGo(child);
}

/** A live idle child `scope` kept from `pool`; dead ones are let go on the way. */
function takeKept(scope: string, pool: Pool): SandboxProcess | undefined {
  for (const [child, entry] of kept) {
    if (entry.scope !== scope || poolOf.get(child) !== pool) continue;
    if (!child.idle) {
      letGo(child);
      continue;
    }
    clearTimeout(entry.timer);
    kept.delete(child);
    return child;
  }
  return undefined;
}

/** Keeps a child for its scope's next call; the oldest kept goes when there are `most` already. */
function keepForScope(scope: string, child: SandboxProcess, most: number): void {
  for (const [oldest] of kept) {
    if (kept.size < most) break;
    letGo(oldest);
  }
  const timer = setTimeout(() => letGo(child), SCOPE_IDLE_MS);
  timer.unref();
  kept.set(child, { scope, timer });
}

/** Kills a kept child (its scope is over, it waited too long, or newer ones need the room). */
function letGo(child: SandboxProcess): void {
  clearTimeout(kept.get(child)?.timer);
  kept.delete(child);
  child.kill();
}

/**
 * Stops every child and removes the snapshot (a server shutting down, a test file ending), once a
 * snapshot being stored is written.
 */
export async function stopSandboxPool(): Promise<void> {
  endSandboxScopes("");
  const children = [...live];
  for (const pool of pools.values()) {
    if (pool.shrinkTimer) clearTimeout(pool.shrinkTimer);
    for (const timer of pool.idleTimers.values()) clearTimeout(timer);
    pool.idleTimers.clear();
    pool.ready = [];
    for (const waiter of pool.waiters.splice(0)) {
      waiter.settle({ ok: false, error: new SandboxStartError("The sandbox was stopped.") });
    }
    for (const watcher of pool.readyWatchers.splice(0)) watcher();
  }
  pools.clear();
  for (const child of children) child.kill();
  // Children do not hold the event loop; waiting for them to end does.
  const hold = setInterval(() => {}, 60_000);
  await Promise.all(children.map((child) => new Promise<void>((resolve) => child.onExit(resolve))));
  await Promise.all(storing);
  clearInterval(hold);
  removeSnapshot();
  storeRefused = false;
  generation += 1;
}

/**
 * Resolves once the pool of this language and memory size has the children it keeps ready, or is
 * stopped (benchmarks, tests). Resolves at once for a pool that was never used.
 */
export async function sandboxPoolReady(language: RuntimeLanguage, memoryMb: number): Promise<void> {
  const pool = pools.get(keyOf(language, memoryMb));
  // Children loading do not hold the event loop; this wait does.
  const hold = setInterval(() => {}, 60_000);
  try {
    // A pool whose children fail to start starts none ahead: nothing is coming to wait for.
    while (pool && isCurrent(pool) && pool.ready.length < readyWanted(pool) && (pool.healthy || pool.starting > 0)) {
      await new Promise<void>((resolve) => pool.readyWatchers.push(resolve));
    }
  } finally {
    clearInterval(hold);
  }
}

export function sandboxPoolStats(): SandboxPoolStats {
  const ready: Record<RuntimeLanguage, number[]> = { javascript: [], python: [] };
  const pids: Record<RuntimeLanguage, number[]> = { javascript: [], python: [] };
  const waiting: Record<RuntimeLanguage, number> = { javascript: 0, python: 0 };
  for (const pool of pools.values()) {
    for (const child of pool.ready) if (child.pid !== undefined) ready[pool.language].push(child.pid);
    waiting[pool.language] += pool.waiters.length;
  }
  for (const child of live) if (child.pid !== undefined && child.alive) pids[child.language].push(child.pid);
  const byScope: Record<string, number[]> = {};
  for (const [child, { scope }] of kept) {
    if (child.pid !== undefined) byScope[scope] = [...(byScope[scope] ?? []), child.pid];
  }
  return {
    started: { ...started },
    startedFromSnapshot,
    ready,
    pids,
    waiting,
    scoped: byScope,
    snapshotFd: snapshot.state === "ready" ? snapshot.fd : null,
    snapshotFrom: snapshot.state === "ready" ? snapshot.from : null,
  };
}

function keyOf(language: RuntimeLanguage, memoryMb: number): string {
  return `${language}:${memoryMb}`;
}

function isCurrent(pool: Pool): boolean {
  return pools.get(keyOf(pool.language, pool.memoryMb)) === pool;
}

function poolFor(language: RuntimeLanguage, memoryMb: number, size: PoolSize): Pool {
  const key = keyOf(language, memoryMb);
  let pool = pools.get(key);
  if (!pool) {
    pool = {
      language,
      memoryMb,
      warm: 0,
      most: 0,
      grown: 0,
      shrinkTimer: null,
      served: 0,
      ready: [],
      starting: 0,
      busy: 0,
      waiters: [],
      idleTimers: new Map(),
      readyWatchers: [],
      healthy: true,
    };
    pools.set(key, pool);
    // Another memory size of the same language is idle from now on: its ready children go.
    for (const other of pools.values()) {
      if (other === pool || other.language !== language) continue;
      other.warm = 0;
      other.most = 0;
      shrink(other);
      for (const child of other.ready.splice(0)) leaveReady(other, child);
    }
  }
  pool.warm = Math.max(0, size.warm);
  // `warm` 0 starts a child for every call: nothing is kept, so nothing grows either.
  pool.most = pool.warm === 0 ? 0 : Math.max(pool.warm, size.most);
  return pool;
}

/** Children this pool keeps ready now. */
function readyWanted(pool: Pool): number {
  return Math.min(pool.warm + pool.grown, pool.most);
}

/** A call found no child ready: keep one more ready from now on, until the burst is over. */
function grow(pool: Pool): void {
  if (!pool.healthy) return;
  if (pool.warm + pool.grown < pool.most) pool.grown += 1;
  if (pool.grown === 0) return;
  // The burst goes on (at the most, too): its children stay for GROWN_FOR_MS from now.
  if (pool.shrinkTimer) clearTimeout(pool.shrinkTimer);
  pool.shrinkTimer = setTimeout(() => {
    shrink(pool);
    while (pool.ready.length > readyWanted(pool)) leaveReady(pool, pool.ready[pool.ready.length - 1] as SandboxProcess);
  }, GROWN_FOR_MS);
  pool.shrinkTimer.unref();
}

function shrink(pool: Pool): void {
  if (pool.shrinkTimer) clearTimeout(pool.shrinkTimer);
  pool.shrinkTimer = null;
  pool.grown = 0;
}

function takeReady(pool: Pool): SandboxProcess | undefined {
  for (let child = pool.ready.shift(); child; child = pool.ready.shift()) {
    leaveReady(pool, child, false);
    if (child.idle) return child;
    child.kill();
  }
  return undefined;
}

/** Takes a child off the ready list (and its idle timer); kills it unless told otherwise. */
function leaveReady(pool: Pool, child: SandboxProcess, kill = true): void {
  const at = pool.ready.indexOf(child);
  if (at !== -1) pool.ready.splice(at, 1);
  clearTimeout(pool.idleTimers.get(child));
  pool.idleTimers.delete(child);
  if (kill) child.kill();
}

/** A ready child goes to the first waiter, or waits in the pool (up to what it keeps ready). */
function offer(pool: Pool, child: SandboxProcess): void {
  const waiter = pool.waiters.shift();
  if (waiter) {
    pool.busy += 1;
    waiter.settle({ ok: true, child });
    return;
  }
  if (!isCurrent(pool) || pool.ready.length >= readyWanted(pool)) {
    child.kill();
    return;
  }
  pool.ready.push(child);
  const timer = setTimeout(() => leaveReady(pool, child), IDLE_MS);
  timer.unref();
  pool.idleTimers.set(child, timer);
  for (const watcher of pool.readyWatchers.splice(0)) watcher();
}

/**
 * Starts children until every waiting call has one coming and the pool's ready children will be
 * there once the running calls end. A JavaScript child running a call comes back; a Python child
 * does not.
 */
function replenish(pool: Pool): void {
  if (!isCurrent(pool)) return;
  const coming = () => pool.ready.length + pool.starting + (pool.language === "javascript" ? pool.busy : 0);
  // The pool's first call waits for a cold start: its child loads alone, on cores it would
  // otherwise share, and the children kept ready start once it has it.
  const firstCallWaits = pool.served <= 1 && pool.waiters.length > 0;
  const ahead = pool.healthy && !firstCallWaits ? readyWanted(pool) : 0;
  const wanted = () =>
    pool.language === "javascript" ? Math.max(ahead, pool.busy + pool.waiters.length) : ahead + pool.waiters.length;
  while (coming() < wanted() && pool.starting < MAX_STARTING) {
    pool.starting += 1;
    void startChild(pool).finally(() => {
      pool.starting -= 1;
      // Waiting calls beyond MAX_STARTING get their children now.
      replenish(pool);
    });
  }
}

async function startChild(pool: Pool): Promise<void> {
  let child: SandboxProcess;
  try {
    child = await spawnChild(pool);
  } catch (error) {
    if (isCurrent(pool)) {
      pool.healthy = false;
      failWaiter(pool, error as Error);
    }
    return;
  }
  const stuck = setTimeout(() => child.kill(), LOAD_TIMEOUT_MS);
  stuck.unref();
  const from = snapshotOf.get(child);
  try {
    await child.ready;
  } catch (error) {
    // Every child started from it tries again (children start side by side), from a new snapshot.
    if (from?.from === "store" && !from.proven && isCurrent(pool)) {
      refuseStoredSnapshot(from);
      return startChild(pool);
    }
    // A child killed by stopSandboxPool or a retired pool is no one's failure.
    if (isCurrent(pool)) {
      pool.healthy = false;
      failWaiter(pool, error as Error);
    }
    return;
  } finally {
    clearTimeout(stuck);
  }
  if (from) from.proven = true;
  pool.healthy = true;
  offer(pool, child);
}

/** The first waiting call learns why its child could not start; nothing is retried for it. */
function failWaiter(pool: Pool, error: Error): void {
  pool.waiters.shift()?.settle({ ok: false, error });
}

async function spawnChild(pool: Pool): Promise<SandboxProcess> {
  const { language, memoryMb } = pool;
  if (language === "python" && snapshot.state === "none" && storeDir !== null && !storeRefused) {
    loadStoredSnapshot(storeDir);
  }
  // Children needed while the snapshot is being made (or read) wait for it: on a machine with few
  // cores, loading Pyodide twice at once is slower than loading it once and starting from the snapshot.
  while (language === "python" && snapshot.state === "making") await snapshot.done;
  if (!isCurrent(pool)) throw new SandboxStartError("The sandbox was stopped.");
  const child = language === "python" ? newPythonChild(memoryMb) : new SandboxProcess({ language, memoryMb });
  started[language] += 1;
  live.add(child);
  poolOf.set(child, pool);
  child.onExit(() => {
    live.delete(child);
    // A ready child that dies (killed from outside) leaves the pool; it is replaced at the next call.
    leaveReady(pool, child, false);
  });
  return child;
}

function newPythonChild(memoryMb: number): SandboxProcess {
  const language = "python";
  const current = snapshot;
  if (current.state === "ready") {
    startedFromSnapshot += 1;
    const child = new SandboxProcess({ language, memoryMb, python: { fromSnapshot: true }, snapshotFd: current.fd });
    snapshotOf.set(child, current);
    return child;
  }
  if (current.state === "unavailable") return new SandboxProcess({ language, memoryMb });
  const { coming: making, finish } = snapshotComing();
  const store = storeDir;
  const child = new SandboxProcess({
    language,
    memoryMb,
    python: { makeSnapshot: true },
    onSnapshot: (bytes) => {
      if (snapshot === making) snapshot = bytes.length > 0 ? saveSnapshot(bytes) : { state: "unavailable" };
      finish();
      // For the next start of this process; a cache, so a disk that refuses it changes nothing here.
      if (bytes.length > 0 && store !== null) {
        const kept = keepSnapshot(store, bytes);
        storing.add(kept);
        void kept.finally(() => storing.delete(kept));
      }
    },
  });
  // A maker that dies before sending its snapshot leaves the next Python child to try again.
  child.onExit(() => {
    if (snapshot === making) snapshot = { state: "none" };
    finish();
  });
  return child;
}

/** The snapshot is on its way (being taken, or read from the store): children wait until `finish`. */
function snapshotComing(): { coming: SnapshotState; finish: () => void } {
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const coming: SnapshotState = { state: "making", done };
  snapshot = coming;
  return { coming, finish };
}

/**
 * Keeps the snapshot as an open file that has no name any more: children get the descriptor, and
 * nothing is left on disk whatever way this process ends.
 */
function saveSnapshot(bytes: Buffer): SnapshotState {
  let dir: string | null = null;
  try {
    // mkdtemp makes the directory readable by this user only; the file is created, never reused.
    dir = mkdtempSync(join(tmpdir(), "superstep-sandbox-"));
    const file = join(dir, "python.snapshot");
    writeFileSync(file, bytes, { mode: 0o600, flag: "wx" });
    const fd = openSync(file, "r");
    return { state: "ready", fd, from: "made", proven: true };
  } catch {
    // A full or read-only temporary directory: Python children load from the package instead.
    return { state: "unavailable" };
  } finally {
    if (dir !== null) rmSync(dir, { recursive: true, force: true });
  }
}

async function keepSnapshot(dir: string, bytes: Buffer): Promise<void> {
  try {
    await storeSnapshot(dir, pythonSnapshotKey(), bytes);
  } catch {
    // A cache: the next start takes a snapshot again.
  }
}

/**
 * Opens the stored snapshot, if there is one for this build: children start from the stored file
 * itself. They wait for it as for a maker.
 */
function loadStoredSnapshot(dir: string): void {
  const { coming: loading, finish } = snapshotComing();
  const at = generation;
  const open = async () => {
    try {
      return await openStoredSnapshot(dir, pythonSnapshotKey());
    } catch {
      return null;
    }
  };
  void open().then((stored) => {
    if (stored && (snapshot !== loading || generation !== at)) closeSync(stored.fd);
    else if (snapshot === loading) {
      snapshot = stored
        ? { state: "ready", fd: stored.fd, from: "store", path: stored.path, proven: false }
        : { state: "none" };
    }
    finish();
  });
}

/**
 * A child could not start from the stored snapshot that no child had started from yet: the stored
 * file goes, and so does this process's copy; the next child takes a snapshot of its own.
 */
function refuseStoredSnapshot(bad: ReadySnapshot): void {
  storeRefused = true;
  if (bad.path !== undefined) rmSync(bad.path, { force: true });
  if (snapshot === bad) {
    closeSync(bad.fd);
    snapshot = { state: "none" };
  }
}

function removeSnapshot(): void {
  if (snapshot.state === "ready") closeSync(snapshot.fd);
  if (snapshot.state !== "making") snapshot = { state: "none" };
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Whatever way this process ends normally, its children and the snapshot go with it.
  process.once("exit", () => {
    for (const child of live) child.kill();
    removeSnapshot();
  });
}
