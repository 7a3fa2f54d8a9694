// The pool of ready sandbox children: what one call changes is never seen by the next (of any
// run, any user), children are reused only when that is safe, waiting for a child can be
// cancelled or time out, and every child goes when the pool stops. Nothing here measures time;
// the pool's counters say which child served what.
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { pythonSnapshotKey } from "./child-command.js";
import { runInSandbox, type SandboxCall, type SandboxResult } from "./sandbox.js";
import { endSandboxScopes, sandboxPoolReady, sandboxPoolStats, stopSandboxPool } from "./sandbox-pool.js";

const limits = { timeoutMs: 60_000, memoryMb: 64 };
const js = (code: string, given = limits) => runInSandbox({ language: "javascript", code, args: [] }, given);
const py = (code: string) => runInSandbox({ language: "python", code, args: [] }, limits);

function value(result: SandboxResult): unknown {
  if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
  return result.value;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("sandbox pool: no state shared between calls", () => {
  it("a JavaScript call's changes to globals, prototypes and built-ins are gone for the next call in the same child", async () => {
    await stopSandboxPool();
    const first = await js(`function main() {
      Object.prototype.polluted = "yes";
      Array.prototype.map = function () { return "hijacked"; };
      String.prototype.trim = function () { return "hijacked"; };
      JSON.parse = function () { return "hijacked"; };
      Math.random = function () { return 4; };
      Function.prototype.toString = function () { return "hijacked"; };
      globalThis.leak = "left behind";
      globalThis.console = { log() {} };
      return { seen: [({}).polluted, [1].map((x) => x), " a ".trim(), JSON.parse("1"), Math.random(), leak] };
    }`);
    // The changes took effect in the first call…
    expect(value(first)).toEqual({ seen: ["yes", "hijacked", "hijacked", "hijacked", 4, "left behind"] });
    const children = sandboxPoolStats().started.javascript;

    const second = await js(`function main() {
      console.log("still logs");
      return {
        polluted: typeof ({}).polluted,
        map: [1, 2].map((x) => x * 2),
        trim: " a ".trim(),
        parse: JSON.parse("[1]"),
        random: Math.random() < 1,
        toString: (function named() {}).toString().startsWith("function named"),
        leak: typeof leak,
      };
    }`);
    // …and the second call, in the same child, sees none of them.
    expect(second).toEqual({
      ok: true,
      value: {
        polluted: "undefined",
        map: [2, 4],
        trim: "a",
        parse: [1],
        random: true,
        toString: true,
        leak: "undefined",
      },
      logs: ["still logs"],
    });
    expect(sandboxPoolStats().started.javascript).toBe(children);
  });

  it("a Python call's changes to builtins, modules, functions, files and the JavaScript realm are gone for the next call", async () => {
    const first = await py(`import builtins, json, os, sys, types
from pyodide.ffi import to_js

def main():
    builtins.leak = "left behind"
    builtins.sorted = lambda *args, **kwargs: "hijacked"
    json.dumps = lambda *args, **kwargs: '"hijacked"'
    json.loads.__code__ = (lambda *args, **kwargs: "hijacked").__code__
    sys.modules["leaky"] = types.ModuleType("leaky")
    sys.path.append("/tmp/leaky")
    json.JSONEncoder.leak = 1
    os.environ["LEAK"] = "1"
    with open("/tmp/leak.txt", "w") as f:
        f.write("secret")
    with open(os.path.expanduser("~/leak.txt"), "w") as f:
        f.write("secret")
    # The child's own JavaScript realm, reached through Pyodide's FFI.
    setattr(to_js([]).constructor.prototype, "leak", "left behind")
    return {"seen": [sorted([2, 1]), json.loads("1"), os.path.exists("/tmp/leak.txt"), getattr(to_js([]), "leak", None)]}
`);
    expect(value(first)).toEqual({ seen: ["hijacked", "hijacked", true, "left behind"] });

    const second = await py(`import builtins, json, os, sys
from pyodide.ffi import to_js

def main():
    return {
        "builtins": hasattr(builtins, "leak"),
        "sorted": sorted([2, 1]),
        "dumps": json.dumps([1]),
        "loads": json.loads("[1]"),
        "module": "leaky" in sys.modules,
        "path": "/tmp/leaky" in sys.path,
        "class": hasattr(json.JSONEncoder, "leak"),
        "environ": os.environ.get("LEAK"),
        "tmp": os.path.exists("/tmp/leak.txt"),
        "home": os.path.exists(os.path.expanduser("~/leak.txt")),
        "realm": getattr(to_js([]), "leak", None),
    }
`);
    expect(value(second)).toEqual({
      builtins: false,
      sorted: [1, 2],
      dumps: "[1]",
      loads: [1],
      module: false,
      path: false,
      class: false,
      environ: null,
      tmp: false,
      home: false,
      realm: null,
    });
    // The second call ran in a child started from the memory snapshot, which the first child took
    // before it ran any user code.
    const stats = sandboxPoolStats();
    expect(stats.startedFromSnapshot).toBeGreaterThan(0);
    expect(stats.snapshotFd).not.toBeNull();
  });
});

describe("sandbox pool: reuse", () => {
  it("starts nothing before a language's first call, and then keeps one child of it ready", async () => {
    await stopSandboxPool();
    const before = sandboxPoolStats();
    expect(before.pids).toEqual({ javascript: [], python: [] });
    expect(value(await js("function main() { return 1; }"))).toBe(1);
    const after = sandboxPoolStats();
    expect(after.started.python).toBe(before.started.python);
    expect(after.ready.javascript).toHaveLength(1);
    expect(after.pids.python).toEqual([]);
  });

  it("keeps no child ready with warm 0", async () => {
    await stopSandboxPool();
    const call: SandboxCall = { language: "javascript", code: "function main() { return 1; }", args: [] };
    expect(value(await runInSandbox(call, limits, undefined, { warm: 0 }))).toBe(1);
    expect(sandboxPoolStats().ready.javascript).toEqual([]);
  });

  it("never gives a JavaScript child that hit its time limit another call", async () => {
    await stopSandboxPool();
    expect(value(await js("function main() { return 1; }"))).toBe(1);
    const [child] = sandboxPoolStats().ready.javascript;
    const loop = await js("function main() { while (true) {} }", { timeoutMs: 500, memoryMb: 64 });
    expect(loop).toMatchObject({ ok: false, code: "CODE_TIMEOUT" });
    // The looping call ran in the ready child, which is gone; another one takes its place.
    expect(sandboxPoolStats().pids.javascript).not.toContain(child);
    expect(value(await js("function main() { return 2; }"))).toBe(2);
    expect(sandboxPoolStats().ready.javascript).toHaveLength(1);
    expect(sandboxPoolStats().ready.javascript).not.toContain(child);
  });

  it("gives each Python call a child of its own", async () => {
    expect(value(await py("def main():\n    return 1\n"))).toBe(1);
    await sandboxPoolReady("python", limits.memoryMb);
    const [ready] = sandboxPoolStats().ready.python;
    expect(value(await py("def main():\n    return 2\n"))).toBe(2);
    // The child that answered is gone, and another one is ready in its place.
    expect(sandboxPoolStats().pids.python).not.toContain(ready);
    await sandboxPoolReady("python", limits.memoryMb);
    expect(sandboxPoolStats().ready.python).toHaveLength(1);
  });
});

describe("sandbox pool: the calls of one scope", () => {
  const inScope = (scope: string, code: string, given = limits) =>
    runInSandbox({ language: "python", code, args: [] }, given, undefined, { scope });
  const MARK = `import builtins, os

def main():
    builtins.superstep_mark = "left by scope a"
    with open("/tmp/scope-a.txt", "w") as f:
        f.write("a")
    global leftover
    leftover = 1
    return "marked"
`;
  const LOOK = `import builtins, os

def main():
    return {
        "mark": getattr(builtins, "superstep_mark", None),
        "file": os.path.exists("/tmp/scope-a.txt"),
        "leftover": "leftover" in globals(),
    }
`;

  it("runs a scope's Python calls one after another in one child, each in a fresh namespace, and no other scope's call sees them", async () => {
    await stopSandboxPool();
    expect(value(await py("def main():\n    return 0\n"))).toBe(0);
    await sandboxPoolReady("python", limits.memoryMb);
    const [ready] = sandboxPoolStats().ready.python;

    expect(value(await inScope("run-a\n", MARK))).toBe("marked");
    // The child that answered waits for the scope's next call.
    expect(sandboxPoolStats().scoped).toEqual({ "run-a\n": [ready] });
    // The next call of the scope runs in it: what the first changed in the interpreter is there,
    // its module globals are not.
    expect(value(await inScope("run-a\n", LOOK))).toEqual({ mark: "left by scope a", file: true, leftover: false });
    expect(sandboxPoolStats().scoped).toEqual({ "run-a\n": [ready] });

    // Another scope, and a call without one, never get that child.
    expect(value(await inScope("run-b\n", LOOK))).toEqual({ mark: null, file: false, leftover: false });
    expect(value(await py(LOOK))).toEqual({ mark: null, file: false, leftover: false });
    expect(sandboxPoolStats().scoped["run-a\n"]).toEqual([ready]);
    expect(sandboxPoolStats().scoped["run-b\n"]).not.toContain(ready);
  });

  it("hands the child a scope's call leaves to a call of the same scope waiting for one", async () => {
    await stopSandboxPool();
    expect(value(await py("def main():\n    return 0\n"))).toBe(0);
    await sandboxPoolReady("python", limits.memoryMb);
    // Two calls at once with one child ready: the second waits. The first is done long before a
    // new child has loaded Pyodide, and the second gets its child, with what the first changed.
    const [first, second] = await Promise.all([inScope("run-f\n", MARK), inScope("run-f\n", LOOK)]);
    expect(value(first)).toBe("marked");
    expect(value(second)).toEqual({ mark: "left by scope a", file: true, leftover: false });
    // Both calls ran in one child, which the scope keeps; the child started for the second call
    // went to the pool, for anyone.
    const handed = sandboxPoolStats().scoped["run-f\n"] as number[];
    expect(handed).toHaveLength(1);
    await sandboxPoolReady("python", limits.memoryMb);
    expect(sandboxPoolStats().ready.python.length).toBeGreaterThan(0);
    expect(sandboxPoolStats().ready.python).not.toContain(handed[0]);
  });

  it("gives a kept child whose next call was cancelled before it began back to its scope, never to the pool", async () => {
    await stopSandboxPool();
    expect(value(await inScope("run-g\n", MARK))).toBe("marked");
    const [kept] = sandboxPoolStats().scoped["run-g\n"] as number[];
    const cancel = new AbortController();
    const cancelled = runInSandbox({ language: "python", code: LOOK, args: [] }, limits, cancel.signal, {
      scope: "run-g\n",
    });
    cancel.abort();
    expect(await cancelled).toMatchObject({ ok: false, code: "CODE_ERROR", message: "cancelled" });
    await vi.waitFor(() => expect(sandboxPoolStats().scoped["run-g\n"]).toEqual([kept]));
    expect(sandboxPoolStats().ready.python).not.toContain(kept);
    expect(value(await py(LOOK))).toEqual({ mark: null, file: false, leftover: false });
    expect(value(await inScope("run-g\n", LOOK))).toEqual({ mark: "left by scope a", file: true, leftover: false });
  });

  it("kills the children of the scopes that end, and keeps the others'", async () => {
    await stopSandboxPool();
    expect(value(await inScope("run-a\nx", MARK))).toBe("marked");
    expect(value(await inScope("run-b\nx", MARK))).toBe("marked");
    const { scoped } = sandboxPoolStats();
    const [a] = scoped["run-a\nx"] as number[];
    const [b] = scoped["run-b\nx"] as number[];
    endSandboxScopes("run-a\n");
    expect(sandboxPoolStats().scoped).toEqual({ "run-b\nx": [b] });
    await vi.waitFor(() => expect(isAlive(a as number)).toBe(false));
    expect(isAlive(b as number)).toBe(true);
    // A later call of the ended scope gets a fresh child.
    expect(value(await inScope("run-a\nx", LOOK))).toEqual({ mark: null, file: false, leftover: false });
  });

  it("keeps a child after the code's own exception, but not after a timeout", async () => {
    await stopSandboxPool();
    const failed = await inScope("run-c\n", "def main():\n    raise ValueError('no')\n");
    expect(failed).toMatchObject({ ok: false, code: "CODE_ERROR" });
    const [kept] = sandboxPoolStats().scoped["run-c\n"] as number[];
    const looped = await inScope("run-c\n", "def main():\n    while True:\n        pass\n", {
      timeoutMs: 500,
      memoryMb: 64,
    });
    expect(looped).toMatchObject({ ok: false, code: "CODE_TIMEOUT" });
    expect(sandboxPoolStats().scoped["run-c\n"]).toBeUndefined();
    await vi.waitFor(() => expect(isAlive(kept as number)).toBe(false));
  });

  it("keeps at most the pool's most for scopes, letting the longest kept go, and none with warm 0", async () => {
    await stopSandboxPool();
    const size = { warm: 1, warmMax: 2 };
    const call = (scope: string, options: object = size) =>
      runInSandbox({ language: "python", code: "def main():\n    return 1\n", args: [] }, limits, undefined, {
        scope,
        ...options,
      });
    for (const scope of ["s1", "s2"]) expect(value(await call(scope))).toBe(1);
    const [first] = sandboxPoolStats().scoped.s1 as number[];
    expect(value(await call("s3"))).toBe(1);
    expect(Object.keys(sandboxPoolStats().scoped).sort()).toEqual(["s2", "s3"]);
    await vi.waitFor(() => expect(isAlive(first as number)).toBe(false));

    await stopSandboxPool();
    expect(value(await call("s4", { warm: 0 }))).toBe(1);
    expect(sandboxPoolStats().scoped).toEqual({});
  });

  it("counts the calls of one scope against one memory allowance", async () => {
    await stopSandboxPool();
    const hold = `import builtins

def main():
    builtins.superstep_held = getattr(builtins, "superstep_held", []) + [bytearray(40 * 1024 * 1024)]
    return len(builtins.superstep_held)
`;
    // 40 MB of 64 fits; 40 more in the same child would not, whatever the first call left.
    expect(value(await inScope("run-d\n", hold))).toBe(1);
    expect(await inScope("run-d\n", hold)).toMatchObject({ ok: false, code: "CODE_MEMORY" });
    // In a scope of its own, the same code fits again.
    expect(value(await inScope("run-e\n", hold))).toBe(1);
  });
});

describe("sandbox pool: growing with what it is asked", () => {
  const call: SandboxCall = { language: "python", code: "def main():\n    return 1\n", args: [] };
  const given = { timeoutMs: 60_000, memoryMb: 67 };
  /** Calls one after another, each as soon as the one before has answered. */
  async function inARow(calls: number, size: { warm: number; warmMax: number }): Promise<void> {
    for (let i = 0; i < calls; i++) expect(value(await runInSandbox(call, given, undefined, size))).toBe(1);
  }
  async function readyCount(): Promise<number> {
    await sandboxPoolReady("python", given.memoryMb);
    return sandboxPoolStats().ready.python.length;
  }

  it("keeps one more child ready for each call that found none, up to its most, and goes back five minutes after the last one", async () => {
    // Only the pool's own timers are faked: children start and answer in real time.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const size = { warm: 1, warmMax: 3 };
      // The pool's first call starts its child: that grows nothing.
      await inARow(1, size);
      expect(await readyCount()).toBe(1);
      // The second call comes before the first one's replacement is ready (it is started after
      // the answer, once this turn of the event loop is over).
      await inARow(2, size);
      expect(await readyCount()).toBe(2);
      await inARow(3, size);
      expect(await readyCount()).toBe(3);
      vi.advanceTimersByTime(4 * 60_000);
      // The fourth finds none ready too: three is the most, and the five minutes start again.
      await inARow(4, size);
      expect(await readyCount()).toBe(3);
      const grown = sandboxPoolStats().ready.python;
      vi.advanceTimersByTime(5 * 60_000 - 1);
      expect(sandboxPoolStats().ready.python).toEqual(grown);
      vi.advanceTimersByTime(1);
      const left = sandboxPoolStats().ready.python;
      expect(left).toHaveLength(1);
      expect(grown).toContain(left[0]);
      // A call that finds one ready grows nothing.
      await inARow(1, size);
      expect(await readyCount()).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("grows a JavaScript pool for calls at once, whose children serve again", async () => {
    const at = { timeoutMs: 60_000, memoryMb: 68 };
    const size = { warm: 1, warmMax: 3 };
    const jsCall: SandboxCall = { language: "javascript", code: "function main() { return 1; }", args: [] };
    expect(value(await runInSandbox(jsCall, at, undefined, size))).toBe(1);
    await sandboxPoolReady("javascript", at.memoryMb);
    // The first takes the ready child; the other two find it busy.
    const results = await Promise.all([1, 2, 3].map(() => runInSandbox(jsCall, at, undefined, size)));
    expect(results.map(value)).toEqual([1, 1, 1]);
    await sandboxPoolReady("javascript", at.memoryMb);
    expect(sandboxPoolStats().ready.javascript).toHaveLength(3);
  });

  it("keeps warm ready when its most is below it", async () => {
    await inARow(1, { warm: 2, warmMax: 1 });
    expect(await readyCount()).toBe(2);
  });

  it("grows nothing with warm 0, which starts a child for every call", async () => {
    await inARow(3, { warm: 0, warmMax: 3 });
    expect(await readyCount()).toBe(0);
  });
});

describe("sandbox pool: waiting for a child", () => {
  const call: SandboxCall = { language: "python", code: "def main():\n    return 1\n", args: [] };

  it("a call cancelled while it waits ends at once, and the child started for it serves a later call", async () => {
    const fresh = { timeoutMs: 60_000, memoryMb: 65 };
    const controller = new AbortController();
    const pending = runInSandbox(call, fresh, controller.signal);
    controller.abort();
    expect(await pending).toEqual({ ok: false, code: "CODE_ERROR", message: "cancelled", logs: [] });
    expect(sandboxPoolStats().ready.python).toEqual([]);
    await sandboxPoolReady("python", fresh.memoryMb);
    const [ready] = sandboxPoolStats().ready.python;
    expect(ready).toBeDefined();
    expect(value(await runInSandbox(call, fresh))).toBe(1);
    // Served by the child that became ready: it is gone after its one call.
    expect(sandboxPoolStats().pids.python).not.toContain(ready);
  });

  it("a call whose child is not ready in time fails with a clear message", async () => {
    const fresh = { timeoutMs: 60_000, memoryMb: 66 };
    const result = await runInSandbox(call, fresh, undefined, { startupTimeoutMs: 1 });
    expect(result).toEqual({
      ok: false,
      code: "CODE_ERROR",
      message: "The sandbox did not start in time.",
      logs: [],
    });
    await sandboxPoolReady("python", fresh.memoryMb);
    expect(sandboxPoolStats().ready.python).toHaveLength(1);
    expect(value(await runInSandbox(call, fresh))).toBe(1);
  });
});

describe("sandbox pool: the snapshot kept between starts", () => {
  const storedIn = (dir: string) => readdirSync(dir).filter((name) => name.endsWith(".snapshot"));
  const inStore = (dir: string, code: string) =>
    runInSandbox({ language: "python", code, args: [] }, limits, undefined, { snapshotDir: dir });

  it("starts the first Python child after a restart from the stored snapshot, which holds nothing a call did", async () => {
    await stopSandboxPool();
    const dir = join(mkdtempSync(join(tmpdir(), "sandbox-store-")), "cache");
    const before = sandboxPoolStats();
    const first = await inStore(
      dir,
      `import builtins, json, sys, types

def main():
    builtins.leak = "left behind"
    json.dumps = lambda *args, **kwargs: '"hijacked"'
    sys.modules["leaky"] = types.ModuleType("leaky")
    with open("/tmp/leak.txt", "w") as f:
        f.write("secret")
    return 1
`,
    );
    expect(value(first)).toBe(1);
    // This process took the snapshot itself (its first Python child loaded Pyodide from its package).
    expect(sandboxPoolStats().snapshotFrom).toBe("made");
    // A stop (a restart) waits for the snapshot to be stored.
    await stopSandboxPool();
    expect(storedIn(dir)).toHaveLength(1);

    const restarted = sandboxPoolStats();
    const second = await inStore(
      dir,
      `import builtins, json, os, sys

def main():
    return [hasattr(builtins, "leak"), json.dumps([1]), "leaky" in sys.modules, os.path.exists("/tmp/leak.txt")]
`,
    );
    expect(value(second)).toEqual([false, "[1]", false, false]);
    const after = sandboxPoolStats();
    expect(after.snapshotFrom).toBe("store");
    // Every Python child since the restart started from the snapshot: none loaded Pyodide afresh.
    expect(after.started.python - restarted.started.python).toBeGreaterThan(0);
    expect(after.started.python - restarted.started.python).toBe(
      after.startedFromSnapshot - restarted.startedFromSnapshot,
    );
    expect(restarted.started.python - before.started.python).toBeGreaterThan(
      restarted.startedFromSnapshot - before.startedFromSnapshot,
    );
    await stopSandboxPool();
    expect(storedIn(dir)).toHaveLength(1);
  });

  it("starts the first call's child alone, and the child kept ready once that call has it", async () => {
    await stopSandboxPool();
    const dir = mkdtempSync(join(tmpdir(), "sandbox-store-"));
    expect(value(await inStore(dir, "def main():\n    return 1\n"))).toBe(1);
    await stopSandboxPool();
    // A restart: the snapshot is there, so nothing holds a second child back but the rule itself.
    let done = false;
    const call = inStore(dir, "def main():\n    return 2\n").finally(() => {
      done = true;
    });
    let ticksWaiting = 0;
    let mostAliveWhileWaiting = 0;
    while (!done) {
      const stats = sandboxPoolStats();
      if (stats.waiting.python > 0) {
        ticksWaiting += 1;
        mostAliveWhileWaiting = Math.max(mostAliveWhileWaiting, stats.pids.python.length);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(value(await call)).toBe(2);
    expect(ticksWaiting).toBeGreaterThan(0);
    expect(mostAliveWhileWaiting).toBe(1);
    await sandboxPoolReady("python", limits.memoryMb);
    expect(sandboxPoolStats().ready.python).toHaveLength(1);
  });

  it("removes a stored snapshot no child can start from, and the call runs in a child that takes a new one", async () => {
    await stopSandboxPool();
    const dir = mkdtempSync(join(tmpdir(), "sandbox-store-"));
    // Its name matches its bytes, so only Pyodide can tell that it is no snapshot.
    const garbage = Buffer.alloc(64 * 1024, 7);
    const bad = `python-${pythonSnapshotKey()}-${createHash("sha256").update(garbage).digest("hex")}.snapshot`;
    writeFileSync(join(dir, bad), garbage);
    expect(value(await inStore(dir, "def main():\n    return 2\n"))).toBe(2);
    expect(sandboxPoolStats().snapshotFrom).toBe("made");
    await stopSandboxPool();
    const stored = storedIn(dir);
    expect(stored).toHaveLength(1);
    expect(stored).not.toContain(bad);
  });

  it("runs calls as before when the snapshot cannot be stored", async () => {
    await stopSandboxPool();
    const file = join(mkdtempSync(join(tmpdir(), "sandbox-store-")), "a-file");
    writeFileSync(file, "not a directory");
    expect(value(await inStore(join(file, "cache"), "def main():\n    return 3\n"))).toBe(3);
    await stopSandboxPool();
    expect(value(await inStore(join(file, "cache"), "def main():\n    return 4\n"))).toBe(4);
    expect(sandboxPoolStats().snapshotFrom).toBe("made");
  });
});

describe("sandbox pool: stopping", () => {
  /** What a descriptor of this process refers to (Linux), or null when it is not open. */
  function openFile(fd: number): string | null {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return null;
    }
  }

  it("kills every child and closes the snapshot, which has no name on disk", async () => {
    expect(value(await py("def main():\n    return 1\n"))).toBe(1);
    expect(value(await js("function main() { return 1; }"))).toBe(1);
    await sandboxPoolReady("python", limits.memoryMb);
    const stats = sandboxPoolStats();
    const pids = [...stats.pids.javascript, ...stats.pids.python];
    expect(stats.pids.javascript.length).toBeGreaterThanOrEqual(1);
    expect(stats.pids.python.length).toBeGreaterThanOrEqual(1);
    expect(pids.every(isAlive)).toBe(true);
    const fd = stats.snapshotFd as number;
    expect(fd).not.toBeNull();
    if (process.platform === "linux") expect(openFile(fd)).toMatch(/superstep-sandbox-.*\(deleted\)$/);
    await stopSandboxPool();
    expect(pids.filter(isAlive)).toEqual([]);
    expect(sandboxPoolStats()).toMatchObject({ pids: { javascript: [], python: [] }, snapshotFd: null });
    if (process.platform === "linux") expect(openFile(fd) ?? "").not.toMatch(/superstep-sandbox-/);
  });
});
